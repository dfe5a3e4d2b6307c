import type { Decider } from '../decider.js';
import { refuse } from '../refusal.js';
import type { ResourceEvent } from '../../events/resource-events.js';
import { evolveDocument, noDocument, type DocumentState } from './document-state.js';

export type UpdateDocument = {
  readonly resourceId: string;
  /** The caller's vault: a document of another vault answers not_found, as an unknown one. */
  readonly vaultId: string;
  readonly name: string | null;
  readonly description: string | null | undefined;
  /** Sealed for the version this decision will publish. */
  readonly sealedFor: (version: number) => string;
};

/** R-DOC-08: publishes version n+1 with the schema kept as it was. */
export const updateDocument: Decider<DocumentState, UpdateDocument, ResourceEvent> = {
  initialState: noDocument,
  evolve: evolveDocument,
  decide: (state, cmd) => {
    if (state.status !== 'live' || state.vaultId !== cmd.vaultId) return refuse('not_found', 'no such document');
    const version = state.version + 1;
    return [
      {
        type: 'DocumentUpdated',
        data: {
          resourceId: cmd.resourceId,
          vaultId: state.vaultId,
          version,
          name: cmd.name ?? state.name,
          description: cmd.description === undefined ? state.description : cmd.description,
          sealedData: cmd.sealedFor(version),
        },
      },
    ];
  },
};
