import type { FileEvent } from '../../events/file-events.js';

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

export function evolveFile(state: FileState, event: FileEvent): FileState {
  switch (event.type) {
    case 'FileUploaded':
      return { status: 'live', vaultId: event.data.vaultId, label: event.data.label, version: event.data.version };
    case 'FileVersionAdded':
      return state.status === 'none' ? state : { ...state, version: event.data.version };
    default: {
      // Documents share the resource-<id> namespace: their events leave a file's state as it was,
      // so a document's id reads as no file at all.
      const unhandled: never = event;
      void unhandled;
      return state;
    }
  }
}
