import type { CopyKept, KeptFile, KeptKind, Participant } from '../../events/copy-events.js';
import { refuse, type Refusal } from '../refusal.js';
import { chainDecision } from './chain-state.js';
import { hasVersion } from '../version-set.js';

/** A keep of one source version, its content already read from the person's vault and ready to seal. */
export type KeepCopy = {
  readonly adoptionId: string;
  readonly requestId: string;
  readonly organizationId: string;
  readonly slotId: string;
  readonly sourceResourceId: string;
  readonly sourceVersion: number;
  readonly orgResourceId: string;
  readonly resourceType: KeptKind;
  readonly participant: Participant;
  readonly adoptedAt: string;
  readonly now: Date;
  readonly name: string;
  readonly schemaRef: string | null;
  /** Sealed with the chain's key under the adoption's own context, before deciding. */
  readonly sealedData: string | null;
  readonly file: KeptFile | null;
};

/**
 * R-KEEP-02: one chain version per (request, slot, source record, source version). A version
 * already kept is not kept again: the decision is empty and the existing keep stands. A chain the
 * organization deleted (R-ERAS-02) keeps nothing more.
 */
export const keepCopy = chainDecision<KeepCopy>((state, cmd) => {
  if (state.deleted) return copyDeleted();
  if (hasVersion(state.keeps, cmd.sourceVersion)) return [];
  const orgVersion = state.head + 1;
  const { now, ...kept } = cmd;
  const event: CopyKept = { type: 'CopyKept', data: { ...kept, orgVersion, materializedAt: now.toISOString() } };
  return [event];
});

export const copyDeleted = (): Refusal => refuse('adoption_refused', 'the organization deleted its copy of this record');
