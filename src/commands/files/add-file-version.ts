import type { Decider } from '../decider.js';
import { refuse } from '../refusal.js';
import type { ResourceEvent } from '../../events/resource-events.js';
import { evolveFile, noFile, type FileState } from './file-state.js';

export type AddFileVersion = {
  readonly resourceId: string;
  /** The caller's vault: a file of another vault answers not_found, as an unknown one. */
  readonly vaultId: string;
  /** The version the stored blob was sealed for; the seal binds the bytes to it. */
  readonly version: number;
  readonly blobId: string;
  readonly fileName: string;
  readonly mimeType: string;
  readonly fileSize: number;
};

/**
 * R-FILE-02: publishes version n+1. The blob was sealed for one version number before this
 * decision; when another upload took that number meanwhile, publishing it as another version
 * would break the seal, so the decision refuses and the caller seals again.
 */
export const addFileVersion: Decider<FileState, AddFileVersion, ResourceEvent> = {
  initialState: noFile,
  evolve: evolveFile,
  decide: (state, cmd) => {
    if (state.status !== 'live' || state.vaultId !== cmd.vaultId) return refuse('not_found', 'no such file');
    if (cmd.version !== state.version + 1) return refuse('conflict', 'another version was added meanwhile');
    return [{ type: 'FileVersionAdded', data: { ...cmd, label: state.label } }];
  },
};
