import type { ResourceEvent } from '../../events/resource-events.js';

export type FileState =
  | { readonly status: 'none' }
  | {
      readonly status: 'live';
      readonly vaultId: string;
      readonly label: string | null;
      /** The spec's sourceVersion: how many versions were published. */
      readonly version: number;
    };

export const noFile: FileState = { status: 'none' };

export function evolveFile(state: FileState, event: ResourceEvent): FileState {
  switch (event.type) {
    case 'FileUploaded':
      return { status: 'live', vaultId: event.data.vaultId, label: event.data.label, version: event.data.version };
    case 'FileVersionAdded':
      return state.status === 'none' ? state : { ...state, version: event.data.version };
    // A document's versions leave a file's state as it was: a document's id reads as no file.
    case 'DocumentCreated':
    case 'DocumentUpdated':
    case 'DocumentDeleted':
      return state;
  }
}
