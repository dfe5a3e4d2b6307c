import { readFileSync } from 'node:fs';
import { attachmentEvents } from '../../events/attachment-events.js';
import { chainEvents, type CopyCorrected, type CopyKept } from '../../events/copy-events.js';
import { eitherOf, type EventDecoder, type Recorded } from '../../events/decoder.js';
import { requestEvents, type AdoptionPended } from '../../events/request-events.js';
import { projector, writes, type Statement } from '../projector.js';
import { insertInto, type Row, type TableWrite } from '../set-based.js';

const adoptionColumns = [
  'adoption_id',
  'request_id',
  'organization_id',
  'slot_id',
  'source_resource_id',
  'source_version',
  'resource_type',
  'participant',
  'adopted_at',
  'state',
];
const keptColumns = [...adoptionColumns, 'org_resource_id', 'org_version', 'materialized_at'];
const versionColumns = [
  'org_resource_id',
  'org_version',
  'origin',
  'adoption_id',
  'request_id',
  'organization_id',
  'slot_id',
  'source_resource_id',
  'resource_type',
  'name',
  'schema_ref',
  'sealed_data',
  'blob_id',
  'file_name',
  'mime_type',
  'file_size',
  'label',
  'created_at',
];

const pended = insertInto('adoptions', adoptionColumns, 'ON CONFLICT (adoption_id) DO NOTHING');
const kept = insertInto(
  'adoptions',
  keptColumns,
  `ON CONFLICT (adoption_id) DO UPDATE SET state = 'materialized', org_resource_id = EXCLUDED.org_resource_id,
     org_version = EXCLUDED.org_version, materialized_at = EXCLUDED.materialized_at`,
);
const version = insertInto('copy_versions', versionColumns);

/**
 * A correction copies what its chain names from its base version: only the sealed data is its own.
 * Each base is looked up on its own (the LATERAL's OFFSET 0 keeps the planner from making it a
 * join), so every plan of it reads the primary key. As a join, a plan cached while the table is
 * small would scan all of it for every run once it has grown: the planner counts a JSON function's
 * rows as 100, and hashing the whole table looks cheaper than 100 lookups (docs/decisions.md, "Read models").
 */
const correctionOf = (corrections: string) =>
  `INSERT INTO copy_versions (org_resource_id, org_version, origin, adoption_id, request_id, organization_id, slot_id,
     source_resource_id, resource_type, name, schema_ref, sealed_data, created_at)
   SELECT b.org_resource_id, c.org_version, 'correction', NULL, b.request_id, b.organization_id, b.slot_id, b.source_resource_id,
     b.resource_type, b.name, b.schema_ref, c.sealed_data, c.created_at
   FROM ${corrections} AS c (org_resource_id, org_version, base_version, sealed_data, created_at)
   CROSS JOIN LATERAL (SELECT * FROM copy_versions b WHERE b.org_resource_id = c.org_resource_id AND b.org_version = c.base_version
     OFFSET 0) b`;
const correctionColumns = ['org_resource_id', 'org_version', 'base_version', 'sealed_data', 'created_at'];
const oneCorrection = correctionOf('(VALUES ($1::uuid, $2::int, $3::int, $4::text, $5::timestamptz))');
const manyCorrections = correctionOf(
  `(SELECT * FROM json_to_recordset($1::json) AS r (org_resource_id uuid, org_version int, base_version int, sealed_data text,
     created_at timestamptz))`,
);
const correction: TableWrite = {
  one: (row) => [oneCorrection, correctionColumns.map((c) => row[c])],
  many: (rows) => (rows.length === 0 ? [] : [[manyCorrections, [JSON.stringify(rows)]]]),
};

const sql = {
  /** R-CONS-02: a discarded keep leaves the adoptions; a keep of it since (materialized) stays. */
  discarded: `DELETE FROM adoptions WHERE adoption_id = $1 AND state = 'pending'`,
  deletedAdoptions: `UPDATE adoptions SET deleted_at = $2 WHERE org_resource_id = $1`,
  deletedVersions: `DELETE FROM copy_versions WHERE org_resource_id = $1`,
  attachment: `INSERT INTO org_attachments (org_file_id, org_version, request_id, organization_id, blob_id, file_name, mime_type, file_size,
                 added_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
};

/** What a pended and a kept adoption both record. */
const adoptionRow = (d: AdoptionPended['data'] | CopyKept['data'], state: 'pending' | 'materialized'): Row => ({
  adoption_id: d.adoptionId,
  request_id: d.requestId,
  organization_id: d.organizationId,
  slot_id: d.slotId,
  source_resource_id: d.sourceResourceId,
  source_version: d.sourceVersion,
  resource_type: d.resourceType,
  participant: d.participant,
  adopted_at: d.adoptedAt,
  state,
});

const keptRow = (d: CopyKept['data']): Row => ({
  ...adoptionRow(d, 'materialized'),
  org_resource_id: d.orgResourceId,
  org_version: d.orgVersion,
  materialized_at: d.materializedAt,
});

const versionRow = (d: CopyKept['data']): Row => ({
  org_resource_id: d.orgResourceId,
  org_version: d.orgVersion,
  origin: 'copy',
  adoption_id: d.adoptionId,
  request_id: d.requestId,
  organization_id: d.organizationId,
  slot_id: d.slotId,
  source_resource_id: d.sourceResourceId,
  resource_type: d.resourceType,
  name: d.name,
  schema_ref: d.schemaRef,
  sealed_data: d.sealedData,
  blob_id: d.file?.blobId ?? null,
  file_name: d.file?.fileName ?? null,
  mime_type: d.file?.mimeType ?? null,
  file_size: d.file?.fileSize ?? null,
  label: d.file?.label ?? null,
  created_at: d.materializedAt,
});

/** A correction's row, copying the chain columns of version `base`. */
const correctionRow = (d: CopyCorrected['data'], base: number): Row => ({
  org_resource_id: d.orgResourceId,
  org_version: d.orgVersion,
  base_version: base,
  sealed_data: d.sealedData,
  created_at: d.correctedAt,
});

/**
 * A run's corrections. The handler of one copies version v - 1; when that is a correction of the
 * same run, not yet written, it copied its chain columns from its own base, so v copies from there
 * too. The run's kept versions are written before its corrections.
 */
function correctionRows(corrections: readonly CopyCorrected['data'][]): Row[] {
  const baseOf = new Map<string, number>();
  return corrections.map((d) => {
    const base = baseOf.get(`${d.orgResourceId}/${d.orgVersion - 1}`) ?? d.orgVersion - 1;
    baseOf.set(`${d.orgResourceId}/${d.orgVersion}`, base);
    return correctionRow(d, base);
  });
}

/**
 * A run of adoptions, keeps and corrections: pended adoptions first (a keep of the same adoption
 * materializes it, whichever came first), then keeps, their versions, and the corrections that copy them.
 */
function runStatements(run: readonly Recorded<CopyEvent>[]): Statement[] {
  const pendedRows: Row[] = [];
  const keptData: CopyKept['data'][] = [];
  const corrections: CopyCorrected['data'][] = [];
  for (const e of run) {
    if (e.type === 'AdoptionPended') pendedRows.push(adoptionRow(e.data, 'pending'));
    else if (e.type === 'CopyKept') keptData.push(e.data);
    else if (e.type === 'CopyCorrected') corrections.push(e.data);
  }
  return [
    ...pended.many(pendedRows),
    ...kept.many(keptData.map(keptRow)),
    ...version.many(keptData.map(versionRow)),
    ...correction.many(correctionRows(corrections)),
  ];
}

const copyEvents = eitherOf(eitherOf(requestEvents, chainEvents), attachmentEvents);
type CopyEvent = typeof copyEvents extends EventDecoder<infer E> ? E : never;

export const copiesProjector = projector({
  name: 'copies',
  version: 2,
  schemaSql: readFileSync(new URL('./copies.sql', import.meta.url), 'utf8'),
  events: copyEvents,
  on: {
    AdoptionPended: writes((e) => [pended.one(adoptionRow(e.data, 'pending'))]),
    AdoptionDiscarded: writes((e) => [[sql.discarded, [e.data.adoptionId]]]),
    CopyKept: writes((e) => [kept.one(keptRow(e.data)), version.one(versionRow(e.data))], { independent: true }),
    AttachmentAdded: writes(({ data: d }) => [
      [sql.attachment, [d.orgFileId, d.orgVersion, d.requestId, d.organizationId, d.blobId, d.fileName, d.mimeType, d.fileSize, d.addedAt]],
    ]),
    CopyCorrected: writes((e) => [correction.one(correctionRow(e.data, e.data.orgVersion - 1))]),
    CopyDeleted: writes(
      (e) => [
        [sql.deletedAdoptions, [e.data.orgResourceId, e.data.deletedAt]],
        [sql.deletedVersions, [e.data.orgResourceId]],
      ],
      { independent: true },
    ),
  },
  setBased: {
    types: ['AdoptionPended', 'CopyKept', 'CopyCorrected'],
    statements: runStatements,
    // Keeps alone write their adoptions and versions, two tables neither reads; pended adoptions
    // and corrections read or upsert rows of the run.
    independent: (run) => run.every((e) => e.type === 'CopyKept'),
  },
});
