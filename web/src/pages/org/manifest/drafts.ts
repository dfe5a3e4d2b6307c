import type { Schemas } from '@dss/sdk';

/** A manifest and its slots as the organization plane answers them (R-MAN-05), and the editor's drafts of them. */
export type Manifest = Schemas['Manifest'];
type Slot = Schemas['Slot'];
export type Verb = Slot['verbs'][number];
export const VERBS = ['fill', 'edit', 'keep'] as const satisfies readonly Verb[];
export type Adoption = Slot['adoption'];
export type SlotKind = Slot['kind'];

/** A slot being edited: `slotId` carries a slot of the previous version over, null makes a new one; `key` is React's. */
export type SlotDraft = Omit<Slot, 'slotId' | 'subject'> & {
  readonly key: number;
  readonly slotId: string | null;
  readonly subject: string;
};

let keys = 0;

/** A new slot asks for a person's name, kept by hand, until the member changes it. */
export function blankSlot(target: string): SlotDraft {
  return {
    key: ++keys,
    slotId: null,
    label: '',
    group: '',
    subject: '',
    multiple: false,
    kind: 'schema',
    target,
    verbs: ['keep'],
    adoption: 'manual',
    required: false,
  };
}

/** A published slot as the draft of the next version: same slotId, so the slot carries over. */
export const draftOf = ({ subject, ...slot }: Slot): SlotDraft => ({ ...slot, key: ++keys, subject: subject ?? '' });

/** A draft as the API's SlotInput; an empty subject is none. */
export function slotInput({ key: _key, slotId, subject, ...slot }: SlotDraft) {
  return { ...slot, ...(slotId ? { slotId } : {}), ...(subject.trim() ? { subject: subject.trim() } : {}) };
}

/**
 * A change to a draft, keeping R-MAN-04's rule that automatic adoption needs the keep verb: choosing
 * automatic ticks Keep, and unticking Keep goes back to manual.
 */
export function changed(draft: SlotDraft, change: Partial<SlotDraft>): SlotDraft {
  const next = { ...draft, ...change };
  if (change.adoption === 'auto' && !next.verbs.includes('keep')) return { ...next, verbs: [...next.verbs, 'keep'] };
  if (change.verbs && !change.verbs.includes('keep') && next.adoption === 'auto') return { ...next, adoption: 'manual' };
  return next;
}

/** `list` with the item at `from` moved to `to`. */
export function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  if (item !== undefined) next.splice(to, 0, item);
  return next;
}
