import { readFileSync } from 'node:fs';
import { documentEvents } from '../../events/document-events.js';
import { projector, writes } from '../projector.js';

export const documentsProjector = projector({
  name: 'documents',
  version: 1,
  schemaSql: readFileSync(new URL('./documents.sql', import.meta.url), 'utf8'),
  events: documentEvents,
  on: {
    DocumentCreated: writes((e) => [
      [
        `INSERT INTO documents (resource_id, vault_id, name, description, schema_ref, document_schema, unique_per_vault, version,
                                sealed_data, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
        [
          e.data.resourceId,
          e.data.vaultId,
          e.data.name,
          e.data.description,
          e.data.schemaRef,
          e.data.documentSchema === null ? null : JSON.stringify(e.data.documentSchema),
          e.data.uniquePerVault,
          e.data.version,
          e.data.sealedData,
          e.metadata.occurredAt,
        ],
      ],
    ]),
    DocumentUpdated: writes((e) => [
      [
        `UPDATE documents SET name = $2, description = $3, version = $4, sealed_data = $5, updated_at = $6 WHERE resource_id = $1`,
        [e.data.resourceId, e.data.name, e.data.description, e.data.version, e.data.sealedData, e.metadata.occurredAt],
      ],
    ]),
    DocumentDeleted: writes((e) => [
      [`UPDATE documents SET deleted_at = $2 WHERE resource_id = $1`, [e.data.resourceId, e.metadata.occurredAt]],
    ]),
  },
});
