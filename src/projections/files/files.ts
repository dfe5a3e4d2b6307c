import { readFileSync } from 'node:fs';
import type { SqlExecutor } from '../../db/sql.js';
import type { Recorded } from '../../events/decoder.js';
import { fileEvents, type FileEvent } from '../../events/file-events.js';
import { projector } from '../projector.js';

const insertVersion = `
  INSERT INTO file_versions (resource_id, version, blob_id, file_name, mime_type, file_size, uploaded_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7)`;

function addVersion(tx: SqlExecutor, e: Recorded<FileEvent>): Promise<unknown> {
  const d = e.data;
  return tx.query(insertVersion, [d.resourceId, d.version, d.blobId, d.fileName, d.mimeType, d.fileSize, e.metadata.occurredAt]);
}

export const filesProjector = projector({
  name: 'files',
  version: 1,
  schemaSql: readFileSync(new URL('./files.sql', import.meta.url), 'utf8'),
  events: fileEvents,
  on: {
    FileUploaded: async (tx, e) => {
      const d = e.data;
      await tx.query(`INSERT INTO files (resource_id, vault_id, label, version, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)`, [
        d.resourceId,
        d.vaultId,
        d.label,
        d.version,
        e.metadata.occurredAt,
      ]);
      await addVersion(tx, e);
    },
    FileVersionAdded: async (tx, e) => {
      const d = e.data;
      await tx.query(`UPDATE files SET version = $2, updated_at = $3 WHERE resource_id = $1`, [
        d.resourceId,
        d.version,
        e.metadata.occurredAt,
      ]);
      await addVersion(tx, e);
    },
  },
});
