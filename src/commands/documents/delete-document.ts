import { isRefusal } from '../refusal.js';
import { documentDecision } from './document-state.js';
import { changeable, type ResourceAccess } from '../resource-access.js';

export type DeleteDocument = ResourceAccess & { readonly resourceId: string };

/** The resource no longer resolves; its versions stay in the log (sealed). Only a caller who may change it deletes it. */
export const deleteDocument = documentDecision<DeleteDocument>((state, cmd) => {
  const document = changeable(state, cmd, 'document');
  if (isRefusal(document)) return document;
  return [{ type: 'DocumentDeleted', data: { resourceId: cmd.resourceId, vaultId: document.vaultId } }];
});
