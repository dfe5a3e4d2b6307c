import { isRefusal, refuse } from '../refusal.js';
import { fileDecision } from './file-state.js';
import { changeable, type ResourceAccess } from '../resource-access.js';

export type AddFileVersion = ResourceAccess & {
  readonly resourceId: string;
  /** The version the stored blob was sealed for; the seal binds the bytes to it. */
  readonly version: number;
  readonly blobId: string;
  readonly fileName: string;
  readonly mimeType: string;
  readonly fileSize: number;
};

/**
 * R-FILE-02: publishes version n+1, for a caller who may change the file. The blob was sealed for
 * one version number before this decision; when another upload took that number meanwhile,
 * publishing it as another version would break the seal, so the decision refuses and the caller
 * seals again.
 */
export const addFileVersion = fileDecision<AddFileVersion>((state, cmd) => {
  const file = changeable(state, cmd, 'file');
  if (isRefusal(file)) return file;
  if (cmd.version !== file.version + 1) return refuse('conflict', 'another version was added meanwhile');
  const { resourceId, vaultId, version, blobId, fileName, mimeType, fileSize } = cmd;
  return [{ type: 'FileVersionAdded', data: { resourceId, vaultId, version, blobId, fileName, mimeType, fileSize, label: file.label } }];
});
