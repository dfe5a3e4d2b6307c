import type { ChainEvent } from '../../events/copy-events.js';
import type { Decider } from '../decider.js';
import { refuse } from '../refusal.js';
import { emptyChain, evolveChain, type ChainState } from './chain-state.js';

export type CorrectCopy = {
  readonly expectedSourceVersion: number;
  readonly expectedOrgVersion: number;
  /** The newest version the person has published of the record now. */
  readonly newestSourceVersion: number;
  readonly now: Date;
  /** The corrected document, sealed with the organization's key for orgVersion expectedOrgVersion + 1. */
  readonly sealedData: string;
};

/**
 * R-CORR-01 to R-CORR-05: the organization's own revision becomes the chain's next version,
 * origin correction. Only a kept document can be corrected; a stale head or a source that moved
 * on since is a version_conflict, and nothing is written.
 */
export const correctCopy: Decider<ChainState, CorrectCopy, ChainEvent> = {
  initialState: emptyChain,
  evolve: evolveChain,
  decide: (state, cmd) => {
    const kept = state.lastKeep;
    if (!kept) return refuse('adoption_refused', 'this record has no kept copy to correct');
    if (kept.resourceType === 'file') return refuse('adoption_refused', 'a kept file cannot be corrected');
    if (cmd.expectedOrgVersion !== state.head) {
      return refuse('version_conflict', `the copy is at orgVersion ${state.head}; re-read the copies and apply the correction again`);
    }
    if (cmd.expectedSourceVersion !== cmd.newestSourceVersion) {
      return refuse('version_conflict', `the person has published version ${cmd.newestSourceVersion}; keep it first, then correct`);
    }
    const orgVersion = state.head + 1;
    return [
      {
        type: 'CopyCorrected',
        data: {
          requestId: kept.requestId,
          organizationId: kept.organizationId,
          slotId: kept.slotId,
          sourceResourceId: kept.sourceResourceId,
          orgResourceId: kept.orgResourceId,
          orgVersion,
          followsAdoptionId: kept.adoptionId,
          correctedAt: cmd.now.toISOString(),
          sealedData: cmd.sealedData,
        },
      },
    ];
  },
};
