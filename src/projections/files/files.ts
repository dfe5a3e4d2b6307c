import { readFileSync } from 'node:fs';
import type { Recorded } from '../../events/decoder.js';
import type { UnpositionedEvent } from '../../events/envelope.js';
import { fileEvents, type FileEvent } from '../../events/file-events.js';
import { projector, writes, type Statement } from '../projector.js';

const insertVersion = `
  INSERT INTO file_versions (resource_id, version, blob_id, file_name, mime_type, file_size, uploaded_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7)`;

function addVersion(e: Recorded<FileEvent, UnpositionedEvent>): Statement {
  const d = e.data;
  return [insertVersion, [d.resourceId, d.version, d.blobId, d.fileName, d.mimeType, d.fileSize, e.metadata.occurredAt]];
}

export const filesProjector = projector({
  name: 'files',
  version: 1,
  schemaSql: readFileSync(new URL('./files.sql', import.meta.url), 'utf8'),
  events: fileEvents,
  on: {
    FileUploaded: writes((e) => [
      [
        `INSERT INTO files (resource_id, vault_id, label, version, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)`,
        [e.data.resourceId, e.data.vaultId, e.data.label, e.data.version, e.metadata.occurredAt],
      ],
      addVersion(e),
    ]),
    FileVersionAdded: writes((e) => [
      [`UPDATE files SET version = $2, updated_at = $3 WHERE resource_id = $1`, [e.data.resourceId, e.data.version, e.metadata.occurredAt]],
      addVersion(e),
    ]),
  },
});
