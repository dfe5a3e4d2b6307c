import { readFileSync } from 'node:fs';
import { attachmentEvents } from '../../events/attachment-events.js';
import { chainEvents, type CopyKept } from '../../events/copy-events.js';
import { eitherOf } from '../../events/decoder.js';
import { requestEvents, type AdoptionPended } from '../../events/request-events.js';
import { projector, writes } from '../projector.js';

const sql = {
  pended: `INSERT INTO adoptions (adoption_id, request_id, organization_id, slot_id, source_resource_id, source_version, resource_type,
             participant, adopted_at, state)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending') ON CONFLICT (adoption_id) DO NOTHING`,
  kept: `INSERT INTO adoptions (adoption_id, request_id, organization_id, slot_id, source_resource_id, source_version, resource_type,
           participant, adopted_at, state, org_resource_id, org_version, materialized_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'materialized', $10, $11, $12)
         ON CONFLICT (adoption_id) DO UPDATE SET state = 'materialized', org_resource_id = EXCLUDED.org_resource_id,
           org_version = EXCLUDED.org_version, materialized_at = EXCLUDED.materialized_at`,
  version: `INSERT INTO copy_versions (org_resource_id, org_version, origin, adoption_id, request_id, organization_id, slot_id,
              source_resource_id, resource_type, name, schema_ref, sealed_data, blob_id, file_name, mime_type, file_size, label, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
  correction: `INSERT INTO copy_versions (org_resource_id, org_version, origin, adoption_id, request_id, organization_id, slot_id,
                 source_resource_id, resource_type, name, schema_ref, sealed_data, created_at)
               SELECT org_resource_id, $2, 'correction', NULL, request_id, organization_id, slot_id, source_resource_id, resource_type,
                 name, schema_ref, $3, $4
               FROM copy_versions WHERE org_resource_id = $1 AND org_version = $2 - 1`,
  deletedAdoptions: `UPDATE adoptions SET deleted_at = $2 WHERE org_resource_id = $1`,
  deletedVersions: `DELETE FROM copy_versions WHERE org_resource_id = $1`,
  attachment: `INSERT INTO org_attachments (org_file_id, org_version, request_id, organization_id, blob_id, file_name, mime_type, file_size,
                 added_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
};

/** What a pended and a kept adoption both record, in the order both statements take it. */
const adoptionColumns = (d: AdoptionPended['data'] | CopyKept['data']): unknown[] => [
  d.adoptionId,
  d.requestId,
  d.organizationId,
  d.slotId,
  d.sourceResourceId,
  d.sourceVersion,
  d.resourceType,
  d.participant === null ? null : JSON.stringify(d.participant),
  d.adoptedAt,
];

export const copiesProjector = projector({
  name: 'copies',
  version: 2,
  schemaSql: readFileSync(new URL('./copies.sql', import.meta.url), 'utf8'),
  events: eitherOf(eitherOf(requestEvents, chainEvents), attachmentEvents),
  on: {
    AdoptionPended: writes((e) => [[sql.pended, adoptionColumns(e.data)]]),
    CopyKept: writes(({ data: d }) => [
      [sql.kept, [...adoptionColumns(d), d.orgResourceId, d.orgVersion, d.materializedAt]],
      [
        sql.version,
        [
          d.orgResourceId,
          d.orgVersion,
          'copy',
          d.adoptionId,
          d.requestId,
          d.organizationId,
          d.slotId,
          d.sourceResourceId,
          d.resourceType,
          d.name,
          d.schemaRef,
          d.sealedData,
          d.file?.blobId ?? null,
          d.file?.fileName ?? null,
          d.file?.mimeType ?? null,
          d.file?.fileSize ?? null,
          d.file?.label ?? null,
          d.materializedAt,
        ],
      ],
    ]),
    AttachmentAdded: writes(({ data: d }) => [
      [sql.attachment, [d.orgFileId, d.orgVersion, d.requestId, d.organizationId, d.blobId, d.fileName, d.mimeType, d.fileSize, d.addedAt]],
    ]),
    CopyCorrected: writes((e) => [[sql.correction, [e.data.orgResourceId, e.data.orgVersion, e.data.sealedData, e.data.correctedAt]]]),
    CopyDeleted: writes((e) => [
      [sql.deletedAdoptions, [e.data.orgResourceId, e.data.deletedAt]],
      [sql.deletedVersions, [e.data.orgResourceId]],
    ]),
  },
});
