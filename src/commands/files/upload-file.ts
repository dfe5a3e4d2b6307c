import { refuse } from '../refusal.js';
import { fileDecision } from './file-state.js';

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
export const uploadFile = fileDecision<UploadFile>((state, cmd) => {
  if (state.status !== 'none') return refuse('conflict', 'a resource with this id exists');
  return [{ type: 'FileUploaded', data: { ...cmd, version: 1 } }];
});
