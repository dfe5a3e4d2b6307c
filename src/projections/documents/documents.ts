import { readFileSync } from 'node:fs';
import type { Recorded } from '../../events/decoder.js';
import { documentEvents, type DocumentCreated, type DocumentEvent, type DocumentUpdated } from '../../events/document-events.js';
import type { UnpositionedEvent } from '../../events/envelope.js';
import { projector, writes, type Statement } from '../projector.js';
import { insertInto, updateOf, type Row } from '../set-based.js';

const created = insertInto('documents', [
  'resource_id',
  'vault_id',
  'name',
  'description',
  'schema_ref',
  'document_schema',
  'unique_per_vault',
  'version',
  'sealed_data',
  'created_at',
  'updated_at',
]);
const updated = updateOf('documents', 'resource_id', ['name', 'description', 'version', 'sealed_data', 'updated_at']);
const published = insertInto('document_versions', ['resource_id', 'version', 'published_at']);

const createdRow = ({ data: d, metadata }: Recorded<DocumentCreated, UnpositionedEvent>): Row => ({
  resource_id: d.resourceId,
  vault_id: d.vaultId,
  name: d.name,
  description: d.description,
  schema_ref: d.schemaRef,
  document_schema: d.documentSchema,
  unique_per_vault: d.uniquePerVault,
  version: d.version,
  sealed_data: d.sealedData,
  created_at: metadata.occurredAt,
  updated_at: metadata.occurredAt,
});
const updatedRow = ({ data: d, metadata }: Recorded<DocumentUpdated, UnpositionedEvent>): Row => ({
  resource_id: d.resourceId,
  name: d.name,
  description: d.description,
  version: d.version,
  sealed_data: d.sealedData,
  updated_at: metadata.occurredAt,
});

const publishedRow = ({ data: d, metadata }: Recorded<DocumentCreated | DocumentUpdated, UnpositionedEvent>): Row => ({
  resource_id: d.resourceId,
  version: d.version,
  published_at: metadata.occurredAt,
});

/**
 * A document created in the run is inserted as its last update in the run leaves it, so the run's
 * three statements touch different rows and read none another writes (SetBasedForm.independent).
 */
function runStatements(run: readonly Recorded<DocumentEvent>[]): Statement[] {
  const createdRows = new Map<string, Row>();
  const updatedRows: Row[] = [];
  const publishedRows: Row[] = [];
  for (const e of run) {
    if (e.type === 'DocumentCreated') createdRows.set(e.data.resourceId, createdRow(e));
    else if (e.type === 'DocumentUpdated') {
      const created = createdRows.get(e.data.resourceId);
      if (created) createdRows.set(e.data.resourceId, { ...created, ...updatedRow(e) });
      else updatedRows.push(updatedRow(e));
    }
    if (e.type !== 'DocumentDeleted') publishedRows.push(publishedRow(e));
  }
  return [...created.many([...createdRows.values()]), ...updated.many(updatedRows), ...published.many(publishedRows)];
}

export const documentsProjector = projector({
  name: 'documents',
  version: 2,
  schemaSql: readFileSync(new URL('./documents.sql', import.meta.url), 'utf8'),
  events: documentEvents,
  on: {
    DocumentCreated: writes((e) => [created.one(createdRow(e)), published.one(publishedRow(e))], { independent: true }),
    DocumentUpdated: writes((e) => [updated.one(updatedRow(e)), published.one(publishedRow(e))], { independent: true }),
    DocumentDeleted: writes((e) => [
      [`UPDATE documents SET deleted_at = $2 WHERE resource_id = $1`, [e.data.resourceId, e.metadata.occurredAt]],
    ]),
  },
  setBased: { types: ['DocumentCreated', 'DocumentUpdated'], statements: runStatements, independent: () => true },
});
