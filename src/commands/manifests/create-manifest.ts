import { isRefusal, refuse } from '../refusal.js';
import { manifestDecision, resolveSlots, type SlotDraft } from './manifest-state.js';

export type CreateManifest = {
  readonly manifestId: string;
  readonly organizationId: string;
  readonly name: string;
  /** §11: why the organization asks, as the edge checked it (1 to 2000 characters). */
  readonly purpose: string;
  readonly retention: string;
  readonly slots: readonly SlotDraft[];
  /** One per slot draft; used where the draft has no slotId. */
  readonly freshSlotIds: readonly string[];
  readonly now: Date;
};

/** POST /org/v1/manifests: version 1. There is no previous version, so no slotId can be carried over. */
export const createManifest = manifestDecision<CreateManifest>((state, cmd) => {
  if (state.status !== 'none') return refuse('conflict', 'a manifest with this id exists');
  const slots = resolveSlots([], cmd.slots, cmd.freshSlotIds);
  if (isRefusal(slots)) return slots;
  return [
    {
      type: 'ManifestPublished',
      data: {
        manifestId: cmd.manifestId,
        organizationId: cmd.organizationId,
        name: cmd.name,
        version: 1,
        purpose: cmd.purpose,
        retention: cmd.retention,
        slots,
        publishedAt: cmd.now.toISOString(),
      },
    },
  ];
});
