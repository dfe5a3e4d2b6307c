import { isRefusal } from '../refusal.js';
import { changeableDocument, documentDecision, type DocumentAccess } from './document-state.js';

export type DeleteDocument = DocumentAccess & { readonly resourceId: string };

/** The resource no longer resolves; its versions stay in the log (sealed). Only a caller who may change it deletes it. */
export const deleteDocument = documentDecision<DeleteDocument>((state, cmd) => {
  const document = changeableDocument(state, cmd);
  if (isRefusal(document)) return document;
  return [{ type: 'DocumentDeleted', data: { resourceId: cmd.resourceId, vaultId: document.vaultId } }];
});
