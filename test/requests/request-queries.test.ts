import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { copiesProjector } from '../../src/projections/copies/copies.js';
import { documentsProjector } from '../../src/projections/documents/documents.js';
import { filesProjector } from '../../src/projections/files/files.js';
import { installReadModels } from '../../src/projections/index.js';
import { manifestsProjector } from '../../src/projections/manifests/manifests.js';
import { organizationsProjector } from '../../src/projections/organizations/organizations.js';
import { requestsProjector } from '../../src/projections/requests/requests.js';
import { requestSql } from '../../src/requests/request-queries.js';
import { VaultKeyring } from '../../src/vaults/keyring.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { planOf } from '../support/plans.js';
import { uuid } from '../support/projector-spec.js';

describe(`the request lookups on tables never analyzed (${mainBackend})`, () => {
  let t: TestDatabase;
  before(async () => {
    t = await openTestDatabase();
    await installReadModels(
      t.db,
      [requestsProjector, manifestsProjector, organizationsProjector, documentsProjector, filesProjector, copiesProjector],
      'rm',
    );
    // A slot's read brings the keys its keeps take (GrantRow.keys).
    await VaultKeyring.open(t.db, randomBytes(32));
    // An owner with a few hundred requests, in a table never analyzed, as a fresh deployment's is.
    await t.db.exec(`INSERT INTO rm.requests (request_id, organization_id, manifest_id, manifest_version, recipient_email, initiated_by,
                       invitation_expires_at, created_at, sent_commit, sent_prepare, phase)
                     SELECT gen_random_uuid(), '${uuid(1)}', gen_random_uuid(), 1, 'person@example.test', 'someone', now(),
                       now() + i * interval '1 ms', 1000 + i, i, 'pending'
                     FROM generate_series(1, 300) AS i`);
    // A few hundred live documents, one of them granted, one deleted and granted.
    await t.db.exec(`INSERT INTO rm.documents (resource_id, vault_id, name, unique_per_vault, version, sealed_data, created_at,
                       updated_at, deleted_at)
                     SELECT CASE i WHEN 1 THEN '${uuid(11)}'::uuid WHEN 2 THEN '${uuid(12)}'::uuid ELSE gen_random_uuid() END,
                       gen_random_uuid(), 'doc', false, 3, 'sealed', now(), now(), CASE WHEN i = 2 THEN now() END
                     FROM generate_series(1, 300) AS i`);
    await t.db.exec(`INSERT INTO rm.request_grants (request_id, slot_id, resource_id, granted_at)
                     VALUES ('${uuid(20)}', '${uuid(21)}', '${uuid(11)}', now()),
                            ('${uuid(20)}', '${uuid(21)}', '${uuid(12)}', now() + interval '1 s')`);
  });
  after(() => t.drop());

  it("is read by the request's primary key, not found among all of its organization's or its recipient's", async () => {
    const requestId = (await t.db.query<{ id: string }>('SELECT request_id::text AS id FROM rm.requests OFFSET 150 LIMIT 1')).rows[0]!.id;
    for (const [text, owner] of [
      [requestSql.oneOfOrganization, uuid(1)],
      [requestSql.oneOfRecipient, 'person@example.test'],
    ] as const) {
      const plan = await planOf(t.db, text, [owner, requestId]);
      expect(plan).to.match(/Index Scan using requests_pkey on requests r/);
      expect(plan).not.to.match(/requests_organization|requests_recipient/);
    }
  });

  it("is read with a slot's grants by primary keys: the request's, each granted document's and its keys'", async () => {
    const plan = await planOf(t.db, requestSql.slotOfOrganization, [uuid(1), uuid(20), uuid(21)]);
    expect(plan).to.match(/Index Scan using requests_pkey on requests r/);
    expect(plan).to.match(/Index Scan using documents_pkey on documents d/);
    expect(plan).to.match(/(Index Scan using|Bitmap Index Scan on) vault_keys_pkey/);
    expect(plan).not.to.match(/Seq Scan on vault_keys/);
    expect(plan).not.to.match(/requests_organization|documents_vault/);
  });

  it("a slot's grants find each document by its primary key, and a deleted one resolves to nothing", async () => {
    const plan = await planOf(t.db, requestSql.grantsOfSlot, [uuid(20), uuid(21)]);
    expect(plan).to.match(/Index Scan using documents_pkey on documents d/);
    expect(plan).not.to.match(/documents_vault/);
    const grants = (await t.db.query<{ resource_id: string; version: number | null }>(requestSql.grantsOfSlot, [uuid(20), uuid(21)])).rows;
    expect(grants.map((g) => [g.resource_id, g.version])).to.deep.equal([
      [uuid(11), 3],
      [uuid(12), null],
    ]);
  });
});
