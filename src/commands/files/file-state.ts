import type { ResourceEvent } from '../../events/resource-events.js';
import { refuse, type Refusal } from '../refusal.js';

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

/** What a change of a file is told of the caller, as the service read it for the file's vault. */
export type FileAccess = {
  /** The vault the caller's access was read for: a file of another vault answers not_found, as an unknown one. */
  readonly vaultId: string;
  /** The caller may change that vault's files: their own vault, or a legal entity they are a MANAGER of. */
  readonly mayChange: boolean;
};

/**
 * A file the caller may change. One of another vault, or none (a document's id too), is not_found;
 * one the caller may read but not change (a MEMBER's view of an entity's file) is forbidden, as
 * for documents.
 */
export function changeableFile(state: FileState, access: FileAccess): LiveFile | Refusal {
  if (state.status !== 'live' || state.vaultId !== access.vaultId) return refuse('not_found', 'no such file');
  if (!access.mayChange) return refuse('forbidden', 'only a MANAGER of the legal entity may change its files');
  return state;
}
