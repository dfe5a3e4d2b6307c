import { expect } from 'chai';
import type { CopyCorrected, CopyKept } from '../../src/events/copy-events.js';
import type { AdoptionDiscarded, AdoptionPended } from '../../src/events/request-events.js';
import { copiesProjector } from '../../src/projections/copies/copies.js';
import { batchStatementsOf } from '../../src/projections/projector.js';
import { installReadModels } from '../../src/projections/read-model-schema.js';
import { openTestDatabase } from '../support/databases.js';
import { planOf } from '../support/plans.js';
import { at, projectorSpecs, recorded, uuid } from '../support/projector-spec.js';

const request = uuid(1);
const org = uuid(2);
const slot = uuid(3);
const source = uuid(4);
const copy = uuid(5);
const acme = { subjectId: 'company', type: 'legal_entity' as const, alias: 'p_acme' };

const pended = (sourceVersion: number, adoptionId: string): AdoptionPended => ({
  type: 'AdoptionPended',
  data: {
    requestId: request,
    organizationId: org,
    adoptionId,
    slotId: slot,
    sourceResourceId: source,
    sourceVersion,
    resourceType: 'document',
    participant: acme,
    adoptedAt: '2026-10-01T09:00:00.000Z',
  },
});
const kept = (sourceVersion: number, orgVersion: number, adoptionId: string, materializedAt: string): CopyKept => ({
  type: 'CopyKept',
  data: {
    adoptionId,
    requestId: request,
    organizationId: org,
    slotId: slot,
    sourceResourceId: source,
    sourceVersion,
    orgResourceId: copy,
    orgVersion,
    resourceType: 'document',
    participant: acme,
    adoptedAt: '2026-10-01T09:00:00.000Z',
    materializedAt,
    name: 'Address',
    schemaRef: 'http://service.test/schemas/core/PersonAddress.json',
    sealedData: `sealed-v${orgVersion}`,
    file: null,
  },
});
const discarded = (sourceVersion: number, adoptionId: string): AdoptionDiscarded => ({
  type: 'AdoptionDiscarded',
  data: {
    requestId: request,
    organizationId: org,
    adoptionId,
    slotId: slot,
    sourceResourceId: source,
    sourceVersion,
    reason: 'connection_inactive',
    discardedAt: '2026-10-02T09:00:00.000Z',
  },
});
const corrected = (orgVersion: number, followsAdoptionId: string): CopyCorrected => ({
  type: 'CopyCorrected',
  data: {
    requestId: request,
    organizationId: org,
    slotId: slot,
    sourceResourceId: source,
    orgResourceId: copy,
    orgVersion,
    followsAdoptionId,
    correctedAt: '2026-10-03T09:00:00.000Z',
    sealedData: `corrected-v${orgVersion}`,
  },
});

const adoptions = `SELECT adoption_id, state, source_version, org_resource_id, org_version, participant, adopted_at, materialized_at
                   FROM adoptions ORDER BY source_version`;
const versions = `SELECT org_version, origin, adoption_id, name, schema_ref, sealed_data, created_at
                  FROM copy_versions ORDER BY org_version`;

describe('copies read model: adoptions, pending or materialized, and every version of each copy chain', () => {
  const given = projectorSpecs();

  it('AdoptionPended lists a pending adoption with no orgResourceId, orgVersion or materializedAt', () =>
    given(copiesProjector, pended(2, uuid(20))).thenRows(adoptions, [
      {
        adoption_id: uuid(20),
        state: 'pending',
        source_version: 2,
        org_resource_id: null,
        org_version: null,
        participant: acme,
        adopted_at: '2026-10-01T09:00:00.000Z',
        materialized_at: null,
      },
    ]));

  it('CopyKept materializes the pended adoption in place and adds the chain version, origin copy', () =>
    given(copiesProjector, pended(2, uuid(20)), kept(2, 1, uuid(20), '2026-10-02T09:00:00.000Z'))
      .thenRows(adoptions, [
        {
          adoption_id: uuid(20),
          state: 'materialized',
          source_version: 2,
          org_resource_id: copy,
          org_version: 1,
          participant: acme,
          adopted_at: '2026-10-01T09:00:00.000Z',
          materialized_at: '2026-10-02T09:00:00.000Z',
        },
      ])
      .thenRows(versions, [
        {
          org_version: 1,
          origin: 'copy',
          adoption_id: uuid(20),
          name: 'Address',
          schema_ref: 'http://service.test/schemas/core/PersonAddress.json',
          sealed_data: 'sealed-v1',
          created_at: '2026-10-02T09:00:00.000Z',
        },
      ]));

  it('AdoptionDiscarded takes the pending adoption out; a materialized one stays (R-CONS-02)', () =>
    given(
      copiesProjector,
      pended(2, uuid(20)),
      pended(3, uuid(21)),
      kept(3, 1, uuid(21), '2026-10-02T09:00:00.000Z'),
      discarded(2, uuid(20)),
      discarded(3, uuid(21)),
    ).thenRows('SELECT adoption_id, state FROM adoptions ORDER BY source_version', [{ adoption_id: uuid(21), state: 'materialized' }]));

  it('CopyCorrected adds the next version, origin correction, with no adoption; keeps and corrections interleave', () =>
    given(
      copiesProjector,
      at('2026-10-02T09:00:00.000Z', kept(2, 1, uuid(20), '2026-10-02T09:00:00.000Z')),
      corrected(2, uuid(20)),
      kept(3, 3, uuid(21), '2026-10-04T09:00:00.000Z'),
    ).thenRows('SELECT org_version, origin, adoption_id, sealed_data, name FROM copy_versions ORDER BY org_version', [
      { org_version: 1, origin: 'copy', adoption_id: uuid(20), sealed_data: 'sealed-v1', name: 'Address' },
      { org_version: 2, origin: 'correction', adoption_id: null, sealed_data: 'corrected-v2', name: 'Address' },
      { org_version: 3, origin: 'copy', adoption_id: uuid(21), sealed_data: 'sealed-v3', name: 'Address' },
    ]));

  it('each correction copies the chain as the version before it stands, through runs of corrections and a newer keep', () => {
    const renamed = kept(3, 4, uuid(21), '2026-10-04T09:00:00.000Z');
    return given(
      copiesProjector,
      kept(2, 1, uuid(20), '2026-10-02T09:00:00.000Z'),
      corrected(2, uuid(20)),
      corrected(3, uuid(20)),
      { ...renamed, data: { ...renamed.data, name: 'Home address', slotId: uuid(7) } },
      corrected(5, uuid(21)),
      corrected(6, uuid(21)),
      // Version 8 names a version 7 that was never written: as one handler alone, nothing to copy.
      corrected(8, uuid(21)),
    ).thenRows('SELECT org_version, origin, name, slot_id, sealed_data FROM copy_versions ORDER BY org_version', [
      { org_version: 1, origin: 'copy', name: 'Address', slot_id: slot, sealed_data: 'sealed-v1' },
      { org_version: 2, origin: 'correction', name: 'Address', slot_id: slot, sealed_data: 'corrected-v2' },
      { org_version: 3, origin: 'correction', name: 'Address', slot_id: slot, sealed_data: 'corrected-v3' },
      { org_version: 4, origin: 'copy', name: 'Home address', slot_id: uuid(7), sealed_data: 'sealed-v4' },
      { org_version: 5, origin: 'correction', name: 'Home address', slot_id: uuid(7), sealed_data: 'corrected-v5' },
      { org_version: 6, origin: 'correction', name: 'Home address', slot_id: uuid(7), sealed_data: 'corrected-v6' },
    ]);
  });

  it("CopyDeleted drops the chain's versions and marks its adoptions deleted; other chains stay", () =>
    given(
      copiesProjector,
      kept(2, 1, uuid(20), '2026-10-02T09:00:00.000Z'),
      corrected(2, uuid(20)),
      {
        ...kept(1, 1, uuid(23), '2026-10-02T09:00:00.000Z'),
        data: { ...kept(1, 1, uuid(23), '2026-10-02T09:00:00.000Z').data, orgResourceId: uuid(6) },
      },
      {
        type: 'CopyDeleted',
        data: {
          requestId: request,
          organizationId: org,
          slotId: slot,
          sourceResourceId: source,
          orgResourceId: copy,
          adoptionId: uuid(20),
          deletedAt: '2026-10-06T09:00:00.000Z',
        },
      },
    )
      .thenRows('SELECT adoption_id, deleted_at FROM adoptions ORDER BY adoption_id', [
        { adoption_id: uuid(20), deleted_at: '2026-10-06T09:00:00.000Z' },
        { adoption_id: uuid(23), deleted_at: null },
      ])
      .thenRows('SELECT org_resource_id, org_version FROM copy_versions', [{ org_resource_id: uuid(6), org_version: 1 }]));

  it('a kept file version records its blob and metadata, and no data', () =>
    given(copiesProjector, {
      ...kept(1, 1, uuid(22), '2026-10-02T09:00:00.000Z'),
      data: {
        ...kept(1, 1, uuid(22), '2026-10-02T09:00:00.000Z').data,
        resourceType: 'file',
        sealedData: null,
        schemaRef: null,
        name: 'PassportScan',
        file: { blobId: uuid(30), fileName: 'passport.pdf', mimeType: 'application/pdf', fileSize: 1234, label: 'Passport' },
      },
    }).thenRows('SELECT resource_type, sealed_data, blob_id, file_name, mime_type, file_size::int AS file_size, label FROM copy_versions', [
      {
        resource_type: 'file',
        sealed_data: null,
        blob_id: uuid(30),
        file_name: 'passport.pdf',
        mime_type: 'application/pdf',
        file_size: 1234,
        label: 'Passport',
      },
    ]));

  it("AttachmentAdded records the organization's own file of the request, with its blob and metadata", () =>
    given(copiesProjector, {
      type: 'AttachmentAdded',
      data: {
        orgFileId: uuid(40),
        requestId: request,
        organizationId: org,
        orgVersion: 1,
        blobId: uuid(41),
        fileName: 'contract.pdf',
        mimeType: 'application/pdf',
        fileSize: 99,
        addedAt: '2026-10-05T09:00:00.000Z',
      },
    }).thenRows(
      `SELECT org_file_id, org_version, request_id, blob_id, file_name, mime_type, file_size::int AS file_size, added_at
       FROM org_attachments`,
      [
        {
          org_file_id: uuid(40),
          org_version: 1,
          request_id: request,
          blob_id: uuid(41),
          file_name: 'contract.pdf',
          mime_type: 'application/pdf',
          file_size: 99,
          added_at: '2026-10-05T09:00:00.000Z',
        },
      ],
    ));

  it("a run's corrections find their bases by primary key, even in a plan made while the table was small", async () => {
    const t = await openTestDatabase();
    try {
      await installReadModels(t.db, [copiesProjector], 'rm');
      const statements = batchStatementsOf(copiesProjector, recorded(copiesProjector, [corrected(2, uuid(20)), corrected(3, uuid(20))]));
      const [text, values] = statements!.at(-1)!;
      expect(text).to.match(/^INSERT INTO copy_versions/);
      const plan = await planOf(t.db, text, [String(values[0])], { generic: true, schema: 'rm' });
      expect(plan).to.match(/Index Scan using copy_versions_pkey/);
      expect(plan).not.to.match(/Seq Scan on copy_versions/);
    } finally {
      await t.drop();
    }
  });
});
