import type { DomainEvent } from './domain-event.js';
import { eventDecoder } from './decoder.js';

// A file is a resource like a document: `resource-<fileId>` (resource-events.ts), one event per version.

/**
 * What every version records. The bytes are not in the event: they sit sealed with the vault's
 * key in the blob store under `blobId`, written before this event, so it never points at nothing.
 */
export type FileVersionData = {
  resourceId: string;
  vaultId: string;
  version: number;
  blobId: string;
  fileName: string;
  mimeType: string;
  fileSize: number;
  label: string | null;
};

/** Version 1 of a file. */
export type FileUploaded = DomainEvent<'FileUploaded', FileVersionData>;

/** Version n+1: new bytes, with their own name and content type; the label stays the file's. */
export type FileVersionAdded = DomainEvent<'FileVersionAdded', FileVersionData>;

export type FileEvent = FileUploaded | FileVersionAdded;

export const fileEvents = eventDecoder<FileEvent>('file', {
  FileUploaded: { version: 1 },
  FileVersionAdded: { version: 1 },
});
