import { expect } from 'chai';
import { generateMasterKey, generatePrivateJwk, serializeJwkSet } from '../../../src/identity/keys/index.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, type OrgClient } from '../org/org-client.js';
import { driver, MANUAL_NAME_SLOT, type Manifest, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';

const EARLIER = 'http://earlier.test';
const LATER = 'https://later.example';
const core = (base: string, name: string) => `${base}/schemas/core/${name}.json`;
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const name = (givenName: string) => ({ givenName, familyName: 'Example' });
const CREATE = 'mutation($input: DocumentInput!) { user { document { create(input: $input) { id } } } }';
const UPDATE = 'mutation($id: ID!, $i: DocumentUpdateInput!) { user { document { update(id: $id, input: $i) { version } } } }';

/** One database served under one base, then another; the people and the organization sign in again (tokens name their issuer). */
function servedUnderTwoBases() {
  const mailer = new RecordingMailer();
  const emails = { owner: 'owner@base-change.test', ann: 'ann@base-change.test' };
  const at = {
    t: null as TestDatabase | null,
    service: null as TestService | null,
    api: null as OrgClient | null,
    member: '',
    ann: null as User | null,
  };
  let keys: Record<string, string> = {};
  let organizationId: string | null = null;
  const d = driver({ api: () => at.api!, member: () => at.member });
  return {
    d,
    ann: () => at.ann!,
    db: () => at.t!.db,
    async open(): Promise<void> {
      at.t = await openTestDatabase();
      keys = { JWT_PRIVATE_KEY: serializeJwkSet([await generatePrivateJwk()]), MASTER_KEY: generateMasterKey().toString('base64') };
    },
    async serveUnder(baseUrl: string): Promise<void> {
      await at.service?.close();
      at.service = await startTestService({ database: at.t!, domain: { mailer, env: { BASE_URL: baseUrl, ...keys } } });
      at.api = orgClient(at.service.url, mailer);
      const owner = await at.api.user({ email: emails.owner });
      at.ann = await at.api.user({ email: emails.ann });
      organizationId ??= await at.api.organization(owner.token, 'Acme');
      at.member = await at.api.signIn(owner.token, organizationId);
    },
    async close(): Promise<void> {
      await at.service?.close();
      await at.t?.drop();
    },
    documentOf: async (id: string) =>
      d.ok(await d.gql(at.ann!, 'query($id: ID!) { user { document(id: $id) { schemaRef version data } } }', { id })).user.document as {
        schemaRef: string | null;
        version: number;
        data: Record<string, unknown>;
      },
  };
}

describe(`§10.13 built-in schema ids survive a change of base (${mainBackend})`, function () {
  this.timeout(120_000);
  const scenario = servedUnderTwoBases();
  const { d, ann, documentOf } = scenario;
  /** Made under the earlier base. */
  const made = { doc: '', embedded: '', kept: '', requestId: '', slotId: '', unique: '' };

  before(async () => {
    await scenario.open();
    await scenario.serveUnder(EARLIER);
    const manifest: Manifest = await d.manifest([MANUAL_NAME_SLOT]);
    made.slotId = manifest.slots[0]!.slotId;
    made.doc = await d.createDoc(ann(), { name: 'Name', schemaRef: core(EARLIER, 'PersonFullName'), data: name('Ann') });
    made.embedded = await d.createDoc(ann(), {
      name: 'Nickname',
      documentSchema: { $schema: DIALECT, allOf: [{ $ref: core(EARLIER, 'PersonFullName') }], required: ['givenName'] },
      data: name('Nan'),
    });
    made.kept = await d.createDoc(ann(), { name: 'Kept name', schemaRef: core(EARLIER, 'PersonFullName'), data: name('Ann') });
    made.unique = await d.createDoc(ann(), {
      name: 'Nationality',
      schemaRef: core(EARLIER, 'PersonNationality'),
      data: { nationalities: ['CH'] },
      uniquePerVault: true,
    });
    made.requestId = await d.connected(manifest.manifestId, ann(), { [made.slotId]: [made.kept] });
    await d.kept(made.requestId, made.slotId);
    await scenario.serveUnder(LATER);
  });
  after(() => scenario.close());

  it('a document made under the earlier base updates, and reads with the current base’s URL', async () => {
    expect(await d.updateDoc(ann(), made.doc, name('Anne'))).to.equal(2);
    expect(await documentOf(made.doc)).to.deep.equal({ schemaRef: core(LATER, 'PersonFullName'), version: 2, data: name('Anne') });
  });

  it('the built-in still judges that document’s data: invalid data is DATA_INVALID, not SCHEMA_NOT_FOUND', async () => {
    const r = await d.gql(ann(), UPDATE, { id: made.doc, i: { data: { givenName: 7 } } });
    expect(d.errorOf(r).extensions.code).to.equal('DATA_INVALID');
  });

  it('a copy kept under the earlier base is corrected, and the copies show the current base’s URL', async () => {
    const corrected = await d.correct(made.requestId, made.slotId, {
      sourceResourceId: made.kept,
      expectedSourceVersion: 1,
      expectedOrgVersion: 1,
      data: name('Annie'),
    });
    expect(corrected.status, JSON.stringify(corrected.body)).to.equal(200);
    const [copy] = await d.copies(made.requestId);
    expect(copy!.schemaRef).to.equal(core(LATER, 'PersonFullName'));
    expect(copy!.currentData).to.deep.equal(name('Annie'));
  });

  it('an embedded schema referring to {earlier base}/core/<Name>.json still validates its document’s updates', async () => {
    expect(await d.updateDoc(ann(), made.embedded, name('Nana'))).to.equal(2);
  });

  it('{earlier base}/core/<Name>.json still names the built-in in a new document, shown with the current base’s URL', async () => {
    const id = await d.createDoc(ann(), { name: 'Address', schemaRef: core(EARLIER, 'PersonFullName'), data: name('Ann') });
    expect((await documentOf(id)).schemaRef).to.equal(core(LATER, 'PersonFullName'));
  });

  it('a unique built-in document made under the earlier base still holds its schema: a second one is document_schema_exists', async () => {
    const r = await d.gql(ann(), CREATE, {
      input: { name: 'Nationality again', schemaRef: core(LATER, 'PersonNationality'), data: { nationalities: ['DE'] } },
    });
    expect(d.errorOf(r).extensions.code).to.equal('DOCUMENT_SCHEMA_EXISTS');
  });

  it('a base this database was never served under stays SCHEMA_NOT_FOUND', async () => {
    const r = await d.gql(ann(), CREATE, {
      input: { name: 'Elsewhere', schemaRef: core('http://never.test', 'PersonFullName'), data: name('Ann') },
    });
    expect(d.errorOf(r).extensions.code).to.equal('SCHEMA_NOT_FOUND');
  });
});

describe(`§10.13 a database older than the record of its bases (${mainBackend})`, function () {
  this.timeout(120_000);
  const scenario = servedUnderTwoBases();
  const { d, ann } = scenario;
  let doc: string;

  before(async () => {
    await scenario.open();
    await scenario.serveUnder(EARLIER);
    doc = await d.createDoc(ann(), { name: 'Name', schemaRef: core(EARLIER, 'PersonFullName'), data: name('Ann') });
    // As a version that kept no record of its bases left the database.
    await scenario.db().exec('DROP SCHEMA schemas CASCADE');
    await scenario.serveUnder(LATER);
  });
  after(() => scenario.close());

  it('learns the earlier base from the built-in ids its documents stored: they update', async () => {
    expect(await d.updateDoc(ann(), doc, name('Anne'))).to.equal(2);
  });
});
