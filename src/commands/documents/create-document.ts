import { refuse } from '../refusal.js';
import type { JsonValue } from '../../events/envelope.js';
import { documentDecision } from './document-state.js';

/** Validated and sealed at the edge of the command: decide only records version 1. */
export type CreateDocument = {
  readonly resourceId: string;
  readonly vaultId: string;
  readonly name: string;
  readonly description: string | null;
  readonly schemaRef: string | null;
  readonly documentSchema: JsonValue;
  readonly uniquePerVault: boolean;
  readonly sealedData: string;
};

export const createDocument = documentDecision<CreateDocument>((state, cmd) => {
  if (state.status !== 'none') return refuse('conflict', 'a resource with this id exists');
  return [{ type: 'DocumentCreated', data: { ...cmd, version: 1 } }];
});
