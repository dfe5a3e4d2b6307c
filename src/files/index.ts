/** Files (R-FILE-*): the service, its blob store, and what the HTTP edge hands them. */
export { BlobStore } from './blob-store.js';
export { FileService, type FileContent, type FileMeta, type FileRef, type FileView, type NewFile } from './file-service.js';
export type { UploadBody } from './sealed-upload.js';
