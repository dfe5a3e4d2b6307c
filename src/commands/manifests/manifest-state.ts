import type { ManifestEvent, Slot } from '../../events/manifest-events.js';
import { BUILTIN_NAMES } from '../../schemas/builtins.js';
import { isRefusal, refuse, type Refusal } from '../refusal.js';

export type ManifestState =
  | { readonly status: 'none' }
  | {
      readonly status: 'published';
      readonly organizationId: string;
      readonly name: string;
      readonly version: number;
      readonly slots: readonly Slot[];
    };

export const noManifest: ManifestState = { status: 'none' };

export function evolveManifest(state: ManifestState, event: ManifestEvent): ManifestState {
  switch (event.type) {
    case 'ManifestPublished':
      return {
        status: 'published',
        organizationId: event.data.organizationId,
        name: event.data.name,
        version: event.data.version,
        slots: event.data.slots,
      };
    default: {
      // A union of one type does not narrow to never; its type tag does.
      const unknown: never = event.type;
      return unknown;
    }
  }
}

/** A SlotInput as the edge checked its shape: slotId null asks for a new slot. */
export type SlotDraft = Omit<Slot, 'slotId'> & { readonly slotId: string | null };

const builtins: readonly string[] = BUILTIN_NAMES;

/**
 * The slot rules of R-MAN-04, naming the offending field: a slotId carries a slot of the previous
 * version over (and only once), new slots take the fresh ids handed in (one per draft, so the
 * decision stays pure), a schema slot needs a built-in, and auto adoption needs the keep verb.
 */
export function resolveSlots(previous: readonly Slot[], drafts: readonly SlotDraft[], freshIds: readonly string[]): Slot[] | Refusal {
  const known = new Set(previous.map((s) => s.slotId));
  const seen = new Set<string>();
  const slots: Slot[] = [];
  for (const [i, draft] of drafts.entries()) {
    const field = `slots[${i}]`;
    if (draft.slotId !== null) {
      if (!known.has(draft.slotId)) return refuse('invalid_request', `${field}.slotId names no slot of the previous version`);
      if (seen.has(draft.slotId)) return refuse('invalid_request', `${field}.slotId carries over a slot another entry already carries`);
      seen.add(draft.slotId);
    }
    if (draft.kind === 'schema' && !builtins.includes(draft.target)) {
      return refuse('invalid_request', `${field}.target must name a built-in schema for kind schema (GET /schemas/core lists them)`);
    }
    if (draft.adoption === 'auto' && !draft.verbs.includes('keep'))
      return refuse('invalid_request', `${field}.adoption auto needs the keep verb in ${field}.verbs`);
    const slotId = draft.slotId ?? freshIds[i];
    if (slotId === undefined) throw new RangeError('one fresh slot id per slot draft is required');
    slots.push({ ...draft, slotId });
  }
  return slots;
}

/** One command's decision on a manifest: the manifest decider (manifest-decider.ts) switches to it. */
export type ManifestDecision<C> = (state: ManifestState, command: C) => readonly ManifestEvent[] | Refusal;
export const manifestDecision = <C>(decide: ManifestDecision<C>): ManifestDecision<C> => decide;

/** What every version's draft holds: the organization's words and slots, as the edge checked them. */
export type VersionDraft = {
  readonly manifestId: string;
  readonly organizationId: string;
  /** §11: why the organization asks (1 to 2000 characters). */
  readonly purpose: string;
  readonly retention: string;
  readonly slots: readonly SlotDraft[];
  /** One per slot draft; used where the draft has no slotId. */
  readonly freshSlotIds: readonly string[];
  readonly now: Date;
};

/**
 * R-MAN-02, R-MAN-04: version `version` of the manifest, complete in itself, its slots resolved
 * against those of the version before (none for version 1).
 */
export function publishVersion(
  draft: VersionDraft,
  name: string,
  version: number,
  previous: readonly Slot[],
): readonly ManifestEvent[] | Refusal {
  const slots = resolveSlots(previous, draft.slots, draft.freshSlotIds);
  if (isRefusal(slots)) return slots;
  const { manifestId, organizationId, purpose, retention, now } = draft;
  return [
    {
      type: 'ManifestPublished',
      data: { manifestId, organizationId, name, version, purpose, retention, slots, publishedAt: now.toISOString() },
    },
  ];
}
