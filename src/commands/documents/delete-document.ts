import type { Decider } from '../decider.js';
import { refuse } from '../refusal.js';
import type { ResourceEvent } from '../../events/resource-events.js';
import { evolveDocument, noDocument, type DocumentState } from './document-state.js';

export type DeleteDocument = { readonly resourceId: string; readonly vaultId: string };

/** The resource no longer resolves; its versions stay in the log (sealed). */
export const deleteDocument: Decider<DocumentState, DeleteDocument, ResourceEvent> = {
  initialState: noDocument,
  evolve: evolveDocument,
  decide: (state, cmd) => {
    if (state.status !== 'live' || state.vaultId !== cmd.vaultId) return refuse('not_found', 'no such document');
    return [{ type: 'DocumentDeleted', data: { resourceId: cmd.resourceId, vaultId: cmd.vaultId } }];
  },
};
