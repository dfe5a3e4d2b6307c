import type { ResourceEvent } from '../../events/resource-events.js';
import type { Decider } from '../decider.js';
import { createDocument, type CreateDocument } from './create-document.js';
import { deleteDocument, type DeleteDocument } from './delete-document.js';
import { evolveDocument, noDocument, type DocumentState } from './document-state.js';
import { updateDocument, type UpdateDocument } from './update-document.js';

/**
 * Every command on a document's stream (`resource-<id>`, a namespace it shares with files). The
 * vault's index of schemas (vault-index.ts) is an aggregate of its own, on the vault's stream.
 */
export type DocumentCommand =
  | { readonly type: 'CreateDocument'; readonly data: CreateDocument }
  | { readonly type: 'UpdateDocument'; readonly data: UpdateDocument }
  | { readonly type: 'DeleteDocument'; readonly data: DeleteDocument };

/** The document's one decider: every refusal of a document command is in the decision it switches to. */
export const documentDecider: Decider<DocumentState, DocumentCommand, ResourceEvent> = {
  initialState: noDocument,
  evolve: evolveDocument,
  decide: (state, command) => {
    switch (command.type) {
      case 'CreateDocument':
        return createDocument(state, command.data);
      case 'UpdateDocument':
        return updateDocument(state, command.data);
      case 'DeleteDocument':
        return deleteDocument(state, command.data);
      default: {
        const unknown: never = command;
        return unknown;
      }
    }
  },
};
