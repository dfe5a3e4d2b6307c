import { adoptionIdOf } from '../../events/copy-events.js';
import { refuse } from '../refusal.js';
import { chainDecision } from './chain-state.js';
import { hasVersion } from '../version-set.js';

export type DeleteCopy = {
  readonly adoptionId: string;
  /** The source version the adoption kept, as its read-model row says; the chain holds only versions. */
  readonly sourceVersion: number;
  readonly now: Date;
};

/**
 * R-ERAS-02: the organization deletes its copy of a record, named by any adoption kept into the
 * chain; the whole chain goes. A chain already deleted, or an adoption it never kept, is not found.
 */
export const deleteCopy = chainDecision<DeleteCopy>((state, cmd) => {
  const kept = state.lastKeep;
  if (state.deleted || !kept) return refuse('not_found', 'no such copy');
  // The chain's own fields, the same in every keep of it (ChainState).
  const { requestId, organizationId, slotId, sourceResourceId, orgResourceId } = kept;
  const keptHere =
    hasVersion(state.keeps, cmd.sourceVersion) && adoptionIdOf(requestId, slotId, sourceResourceId, cmd.sourceVersion) === cmd.adoptionId;
  if (!keptHere) return refuse('not_found', 'no such copy');
  return [
    {
      type: 'CopyDeleted',
      data: {
        requestId,
        organizationId,
        slotId,
        sourceResourceId,
        orgResourceId,
        adoptionId: cmd.adoptionId,
        deletedAt: cmd.now.toISOString(),
      },
    },
  ];
});
