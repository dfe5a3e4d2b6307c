import { ids } from './examples.js';
import {
  APPENDS,
  asUser,
  bytesRequest,
  fileNameQuery,
  jsonAnswer,
  pathParam,
  problems,
  queryParam,
  ref,
  tagged,
  uuid,
  versionQuery,
} from './components.js';

const fileId = pathParam('fileId', 'A file in the caller’s vault', uuid());
const stored = (description: string, version: number) => jsonAnswer(description, ref('FileVersion'), { fileId: ids.fileId, version });
/** Upload errors: a bad name or media type 400, over MAX_FILE_BYTES 413, Content-Encoding 415, no upload slot 429. */
const UPLOAD_ERRORS = [400, 401, 403, 404, 413, 415, 429, ...APPENDS] as const;

/** The caller's own files, raw bytes streamed (R-FILE-*). */
export const vaultPaths = tagged('Vault files', {
  '/vault/files': {
    post: {
      operationId: 'uploadFile',
      summary: 'Upload a file',
      security: asUser,
      parameters: [
        fileNameQuery,
        queryParam('label', 'A label shown with the file', { type: 'string', maxLength: 200 }),
        queryParam('owner', 'The entity that owns the file', { type: 'string', maxLength: 64 }),
      ],
      requestBody: bytesRequest,
      responses: { '201': stored('The stored file', 1), ...problems(...UPLOAD_ERRORS) },
    },
  },
  '/vault/files/{fileId}': {
    get: {
      operationId: 'downloadFile',
      summary: 'Download a file, at a version',
      security: asUser,
      parameters: [fileId, versionQuery],
      responses: {
        '200': {
          description: 'The bytes, as an attachment; X-File-Version names the version',
          headers: { 'X-File-Version': { schema: { type: 'string' } } },
          content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
        },
        ...problems(400, 401, 403, 404),
      },
    },
  },
  '/vault/files/{fileId}/versions': {
    post: {
      operationId: 'uploadFileVersion',
      summary: 'Upload a new version',
      security: asUser,
      parameters: [fileId, fileNameQuery],
      requestBody: bytesRequest,
      responses: { '201': stored('The new version', 2), ...problems(...UPLOAD_ERRORS, 409) },
    },
  },
});
