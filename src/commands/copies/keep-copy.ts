import type { CopyKept, KeptFile, KeptKind, Participant } from '../../events/copy-events.js';
import { refuse, type Refusal } from '../refusal.js';
import { chainDecision } from './chain-state.js';
import { hasVersion } from '../version-set.js';

/** What a keep copies: the version's content, sealed with the chain's key under the adoption's own context. */
export type KeptContent = {
  readonly resourceType: KeptKind;
  readonly name: string;
  readonly schemaRef: string | null;
  readonly sealedData: string | null;
  readonly file: KeptFile | null;
};

/** A keep of one source version, its content already read from the person's vault and sealed. */
export type KeepCopy = {
  readonly adoptionId: string;
  readonly requestId: string;
  readonly organizationId: string;
  readonly slotId: string;
  readonly sourceResourceId: string;
  readonly sourceVersion: number;
  readonly orgResourceId: string;
  readonly participant: Participant;
  readonly adoptedAt: string;
  readonly now: Date;
  /** null: the chain's key is erased, so a deletion of the copy is under way (R-ERAS-02 erases the key first). */
  readonly content: KeptContent | null;
};

/**
 * R-KEEP-02: one chain version per (request, slot, source record, source version). A version
 * already kept is not kept again: the decision is empty and the existing keep stands. A chain the
 * organization deleted, or is deleting (R-ERAS-02), keeps nothing more.
 */
export const keepCopy = chainDecision<KeepCopy>((state, cmd) => {
  if (state.deleted || cmd.content === null) return copyDeleted();
  if (hasVersion(state.keeps, cmd.sourceVersion)) return [];
  const { now, content, ...kept } = cmd;
  const event: CopyKept = {
    type: 'CopyKept',
    data: { ...kept, ...content, orgVersion: state.head + 1, materializedAt: now.toISOString() },
  };
  return [event];
});

export const copyDeleted = (): Refusal => refuse('adoption_refused', 'the organization deleted its copy of this record');
