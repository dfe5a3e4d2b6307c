import type { ManifestEvent, Slot } from '../../events/manifest-events.js';
import { BUILTIN_NAMES } from '../../schemas/builtins.js';
import { refuse, type Refusal } from '../refusal.js';

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
