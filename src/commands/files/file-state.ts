import type { ResourceEvent } from '../../events/resource-events.js';
import type { Refusal } from '../refusal.js';

export type LiveFile = {
  readonly status: 'live';
  readonly vaultId: string;
  readonly label: string | null;
  /** The spec's sourceVersion: how many versions were published. */
  readonly version: number;
};

export type FileState = { readonly status: 'none' } | LiveFile;

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

/** One command's decision on a file: the file decider (file-decider.ts) switches to it. */
export type FileDecision<C> = (state: FileState, command: C) => readonly ResourceEvent[] | Refusal;
export const fileDecision = <C>(decide: FileDecision<C>): FileDecision<C> => decide;
