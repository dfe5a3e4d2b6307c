import type { JsonValue } from '../../events/envelope.js';
import type { ResourceEvent } from '../../events/resource-events.js';

export type DocumentState =
  | { readonly status: 'none' }
  | {
      readonly status: 'live' | 'deleted';
      readonly vaultId: string;
      readonly name: string;
      readonly description: string | null;
      readonly schemaRef: string | null;
      readonly documentSchema: JsonValue;
      /** The spec's sourceVersion: how many versions were published. */
      readonly version: number;
    };

export const noDocument: DocumentState = { status: 'none' };

export function evolveDocument(state: DocumentState, event: ResourceEvent): DocumentState {
  switch (event.type) {
    case 'DocumentCreated': {
      const { vaultId, name, description, schemaRef, documentSchema, version } = event.data;
      return { status: 'live', vaultId, name, description, schemaRef, documentSchema, version };
    }
    case 'DocumentUpdated':
      return state.status === 'none'
        ? state
        : { ...state, name: event.data.name, description: event.data.description, version: event.data.version };
    case 'DocumentDeleted':
      return state.status === 'none' ? state : { ...state, status: 'deleted' };
    // A file's versions leave a document's state as it was: a file's id reads as no document.
    case 'FileUploaded':
    case 'FileVersionAdded':
      return state;
  }
}
