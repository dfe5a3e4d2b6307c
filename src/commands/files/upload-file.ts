import type { Decider } from '../decider.js';
import { refuse } from '../refusal.js';
import type { ResourceEvent } from '../../events/resource-events.js';
import { evolveFile, noFile, type FileState } from './file-state.js';

/** Validated at the edge; the bytes are already sealed and stored under blobId. */
export type UploadFile = {
  readonly resourceId: string;
  readonly vaultId: string;
  readonly blobId: string;
  readonly fileName: string;
  readonly mimeType: string;
  readonly fileSize: number;
  readonly label: string | null;
};

/** R-FILE-01: an upload is version 1 of a new resource. */
export const uploadFile: Decider<FileState, UploadFile, ResourceEvent> = {
  initialState: noFile,
  evolve: evolveFile,
  decide: (state, cmd) => {
    if (state.status !== 'none') return refuse('conflict', 'a resource with this id exists');
    return [{ type: 'FileUploaded', data: { ...cmd, version: 1 } }];
  },
};
