import { isRefusal, refuse } from '../refusal.js';
import { manifestDecision, resolveSlots, type SlotDraft } from './manifest-state.js';

export type PublishManifestVersion = {
  readonly manifestId: string;
  readonly organizationId: string;
  /** §11: why the organization asks, as the edge checked it (1 to 2000 characters). */
  readonly purpose: string;
  readonly retention: string;
  readonly slots: readonly SlotDraft[];
  readonly freshSlotIds: readonly string[];
  readonly now: Date;
};

/**
 * POST /org/v1/manifests/{id}/versions: version + 1, complete in itself; earlier versions stay as
 * they were, so a connection pinned to one is never widened (R-MAN-02, R-REQ-04). Another organization's
 * manifest answers as an unknown one (R-HTTP-11).
 */
export const publishManifestVersion = manifestDecision<PublishManifestVersion>((state, cmd) => {
  if (state.status !== 'published' || state.organizationId !== cmd.organizationId) return refuse('not_found', 'no such manifest');
  const slots = resolveSlots(state.slots, cmd.slots, cmd.freshSlotIds);
  if (isRefusal(slots)) return slots;
  return [
    {
      type: 'ManifestPublished',
      data: {
        manifestId: cmd.manifestId,
        organizationId: cmd.organizationId,
        name: state.name,
        version: state.version + 1,
        purpose: cmd.purpose,
        retention: cmd.retention,
        slots,
        publishedAt: cmd.now.toISOString(),
      },
    },
  ];
});
