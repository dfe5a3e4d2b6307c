import { isRefusal } from '../refusal.js';
import { documentDecision } from './document-state.js';
import { changeable, type ResourceAccess } from '../resource-access.js';

export type UpdateDocument = ResourceAccess & {
  readonly resourceId: string;
  readonly name: string | null;
  readonly description: string | null | undefined;
  /** Sealed for the version this decision will publish. */
  readonly sealedFor: (version: number) => string;
};

/** R-DOC-08: publishes version n+1 with the schema kept as it was, for a caller who may change the document. */
export const updateDocument = documentDecision<UpdateDocument>((state, cmd) => {
  const document = changeable(state, cmd, 'document');
  if (isRefusal(document)) return document;
  const version = document.version + 1;
  return [
    {
      type: 'DocumentUpdated',
      data: {
        resourceId: cmd.resourceId,
        vaultId: document.vaultId,
        version,
        name: cmd.name ?? document.name,
        description: cmd.description === undefined ? document.description : cmd.description,
        sealedData: cmd.sealedFor(version),
      },
    },
  ];
});
