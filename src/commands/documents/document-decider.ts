import { deciderOf, type CommandOf } from '../decider.js';
import { createDocument } from './create-document.js';
import { deleteDocument } from './delete-document.js';
import { evolveDocument, noDocument } from './document-state.js';
import { updateDocument } from './update-document.js';

/**
 * Every command on a document's stream (`resource-<id>`, a namespace it shares with files). The
 * vault's index of schemas (vault-index.ts) is an aggregate of its own, on the vault's stream.
 */
export type DocumentCommand = CommandOf<typeof documentDecisions>;

const documentDecisions = { CreateDocument: createDocument, UpdateDocument: updateDocument, DeleteDocument: deleteDocument };

/** The document's one decider: every refusal of a document command is in the decision its type names. */
export const documentDecider = deciderOf(noDocument, evolveDocument, documentDecisions);
