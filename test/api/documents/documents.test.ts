import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, type OrgClient } from '../org/org-client.js';
import { CORE_SCHEMAS as BASE, driver, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';

const CREATE = `mutation($input: DocumentInput!) { user { document { create(input: $input) { id version } } } }`;
const VALIDATE = `mutation($input: DocumentInput!) { user { document { validate(input: $input) { valid } } } }`;
const UPDATE = `mutation($id: ID!, $input: DocumentUpdateInput!) { user { document { update(id: $id, input: $input) { id version } } } }`;
const DELETE = `mutation($id: ID!) { user { document { delete(id: $id) } } }`;
const DOCUMENTS = `{ user { documents { id name version schemaRef documentSchema data description } } }`;
const DOCUMENT = `query($id: ID!) { user { document(id: $id) { id version data schemaRef } } }`;

const birth = { birthDate: '1990-04-01' };
const contact = { email: 'ann@example.com' };
const nationality = { nationalities: ['DE'] };
const bank = { iban: 'DE89370400440532013000', accountHolder: 'Ann Example', currency: 'EUR', country: 'DE' };

describe(`documents (spec 2.8, 4.2; contract 5, 8; ${mainBackend})`, function () {
  this.timeout(60_000);
  let service: TestService;
  const mailer = new RecordingMailer();
  let api: OrgClient;
  let ann: User;
  let bob: User;
  const { gql, errorOf } = driver({ api: () => api });

  before(async () => {
    // The first schema a validation worker compiles took 500-620 ms on a slow 2-core machine (the
    // service's default budget is 2 s); the hostile schema below still gives up long before its pattern would.
    service = await startTestService({ domain: { mailer, env: { VALIDATION_BUDGET_MS: '1500' } } });
    api = orgClient(service.url, mailer);
    ann = await registered();
    bob = await registered();
  });
  after(() => service.close());

  const registered = () => api.user();
  const create = (u: User, input: Record<string, unknown>) => gql(u, CREATE, { input });
  const count = async (u: User) => ((await gql(u, DOCUMENTS)).data!.user.documents as unknown[]).length;

  describe('create and read', () => {
    it('creates version 1 against a built-in and reads the data back', async () => {
      const r = await create(ann, { name: 'Main account', schemaRef: `${BASE}/PersonBankAccount.json`, data: bank, description: 'salary' });
      const ref = r.data!.user.document.create;
      expect(ref.version).to.equal(1);
      const doc = (await gql(ann, DOCUMENT, { id: ref.id })).data!.user.document;
      expect(doc).to.deep.equal({ id: ref.id, version: 1, data: bank, schemaRef: `${BASE}/PersonBankAccount.json` });
    });

    it('creates against an embedded schema, which is returned as given', async () => {
      const documentSchema = { type: 'object', properties: { nickname: { type: 'string', maxLength: 20 } }, required: ['nickname'] };
      const r = await create(ann, { name: 'Nick', documentSchema, data: { nickname: 'annie' } });
      const id = r.data!.user.document.create.id;
      const list = (await gql(ann, DOCUMENTS)).data!.user.documents as Array<{ id: string; documentSchema: unknown }>;
      expect(list.find((d) => d.id === id)!.documentSchema).to.deep.equal(documentSchema);
    });

    it('rule 5: neither schema gives "no schema definition", both give "both schema definitions"', async () => {
      const none = errorOf(await create(ann, { name: 'x', data: {} }));
      expect(none.extensions.code).to.equal('NO_SCHEMA_DEFINITION');
      expect(none.message).to.contain('no schema definition');
      const both = errorOf(
        await create(ann, { name: 'x', data: {}, schemaRef: `${BASE}/PersonFullName.json`, documentSchema: { type: 'object' } }),
      );
      expect(both.extensions.code).to.equal('BOTH_SCHEMA_DEFINITIONS');
      expect(both.message).to.contain('both schema definitions');
    });

    it('an unknown schemaRef or a $ref to a URL that is not a built-in: "schema not found"', async () => {
      for (const input of [
        { name: 'x', data: {}, schemaRef: 'https://evil.example/schema.json' },
        { name: 'x', data: {}, schemaRef: `${BASE}/NoSuchSchema.json` },
        { name: 'x', data: {}, documentSchema: { $ref: 'https://evil.example/schema.json' } },
      ]) {
        const e = errorOf(await create(ann, input));
        expect(e.extensions.code, JSON.stringify(input)).to.equal('SCHEMA_NOT_FOUND');
        expect(e.message).to.contain('schema not found');
      }
    });

    it('data that fails answers DATA_INVALID with instance path and the validator message; nothing is persisted', async () => {
      const before = await count(ann);
      const e = errorOf(
        await create(ann, { name: 'bad', schemaRef: `${BASE}/PersonBankAccount.json`, data: { ...bank, iban: 'not an iban' } }),
      );
      expect(e.extensions.code).to.equal('DATA_INVALID');
      expect(e.extensions.errors).to.deep.include({ instancePath: '/iban', keyword: 'pattern', message: e.extensions.errors![0]!.message });
      expect(e.message).to.contain('/iban');
      expect(await count(ann)).to.equal(before);
    });

    it('a schema that does not compile (unknown keyword, strict mode) answers SCHEMA_INVALID', async () => {
      const e = errorOf(await create(ann, { name: 'x', data: {}, documentSchema: { type: 'object', propertiez: {} } }));
      expect(e.extensions.code).to.equal('SCHEMA_INVALID');
    });

    it('the composition recipe (allOf + $ref + required) makes an optional built-in field mandatory', async () => {
      const documentSchema = { allOf: [{ $ref: `${BASE}/PersonBankAccount.json` }, { required: ['bic'] }] };
      expect(errorOf(await create(ann, { name: 'x', documentSchema, data: bank })).extensions.code).to.equal('DATA_INVALID');
      expect(
        (await create(ann, { name: 'x', documentSchema, data: { ...bank, bic: 'DEUTDEFF' } })).data!.user.document.create.version,
      ).to.equal(1);
    });
  });

  describe('validate', () => {
    it('is a dry run: valid answers {valid: true}, failures are GraphQL errors, nothing is persisted', async () => {
      const before = await count(ann);
      expect(
        (await gql(ann, VALIDATE, { input: { name: 'x', schemaRef: `${BASE}/PersonBankAccount.json`, data: bank } })).data,
      ).to.deep.equal({ user: { document: { validate: { valid: true } } } });
      expect(
        errorOf(await gql(ann, VALIDATE, { input: { name: 'x', schemaRef: `${BASE}/PersonBankAccount.json`, data: {} } })).extensions.code,
      ).to.equal('DATA_INVALID');
      expect(await count(ann)).to.equal(before);
    });
  });

  describe('update and delete', () => {
    it('update publishes version n+1, keeps the schema (ignoring schema fields) and validates against it', async () => {
      const id = (await create(ann, { name: 'acc', schemaRef: `${BASE}/PersonBankAccount.json`, data: bank })).data!.user.document.create
        .id;
      const v2 = await gql(ann, UPDATE, {
        id,
        input: { data: { ...bank, bankName: 'Bank' }, schemaRef: `${BASE}/PersonFullName.json`, documentSchema: { type: 'string' } },
      });
      expect(v2.data!.user.document.update).to.deep.equal({ id, version: 2 });
      const doc = (await gql(ann, DOCUMENT, { id })).data!.user.document;
      expect(doc.schemaRef).to.equal(`${BASE}/PersonBankAccount.json`);
      expect(doc.data.bankName).to.equal('Bank');
      expect(errorOf(await gql(ann, UPDATE, { id, input: { data: { givenName: 'Ann' } } })).extensions.code).to.equal('DATA_INVALID');
      expect((await gql(ann, DOCUMENT, { id })).data!.user.document.version).to.equal(2);
    });

    it('Document.versions lists every published version, oldest first, with its time and its own data', async () => {
      const id = (await create(ann, { name: 'acc', schemaRef: `${BASE}/PersonBankAccount.json`, data: bank })).data!.user.document.create
        .id;
      const moved = { ...bank, iban: 'FR7630006000011234567890189', country: 'FR' };
      await gql(ann, UPDATE, { id, input: { data: moved } });
      const VERSIONS = `query($id: ID!) { user { document(id: $id) { version versions { version publishedAt data } } } }`;
      const doc = (await gql(ann, VERSIONS, { id })).data!.user.document;
      expect(doc.version).to.equal(2);
      expect(doc.versions.map((v: { version: number; data: unknown }) => [v.version, v.data])).to.deep.equal([
        [1, bank],
        [2, moved],
      ]);
      const [first, second] = doc.versions.map((v: { publishedAt: string }) => Date.parse(v.publishedAt));
      expect(first).to.be.at.most(second);
      const listed = (await gql(ann, `{ user { documents { id versions { version } } } }`)).data!.user.documents;
      expect(listed.find((d: { id: string }) => d.id === id).versions).to.deep.equal([{ version: 1 }, { version: 2 }]);
      expect((await gql(bob, VERSIONS, { id })).data!.user.document, 'another person reads no version').to.equal(null);
    });

    it('Document.versionOf answers one published version with its time and its own data, null for one never published', async () => {
      const id = (await create(ann, { name: 'acc', schemaRef: `${BASE}/PersonBankAccount.json`, data: bank })).data!.user.document.create
        .id;
      const moved = { ...bank, iban: 'FR7630006000011234567890189', country: 'FR' };
      await gql(ann, UPDATE, { id, input: { data: moved } });
      const VERSION_OF = `query($id: ID!, $v: Int!) { user { document(id: $id) { versionOf(version: $v) { version publishedAt data } } } }`;
      const versionOf = async (v: number) => (await gql(ann, VERSION_OF, { id, v })).data!.user.document.versionOf;
      const listed = (await gql(ann, `query($id: ID!) { user { document(id: $id) { versions { version publishedAt } } } }`, { id })).data!
        .user.document.versions;
      expect(await versionOf(1)).to.deep.equal({ version: 1, publishedAt: listed[0].publishedAt, data: bank });
      expect(await versionOf(2)).to.deep.equal({ version: 2, publishedAt: listed[1].publishedAt, data: moved });
      for (const never of [0, 3, -1]) expect(await versionOf(never), `version ${never}`).to.equal(null);
      expect((await gql(bob, VERSION_OF, { id, v: 1 })).data!.user.document, 'another person reads no version').to.equal(null);
    });

    it('delete makes the resource no longer resolve', async () => {
      const id = (await create(ann, { name: 'tmp', schemaRef: `${BASE}/PersonFullName.json`, data: { givenName: 'A', familyName: 'B' } }))
        .data!.user.document.create.id;
      expect((await gql(ann, DELETE, { id })).data).to.deep.equal({ user: { document: { delete: true } } });
      expect((await gql(ann, DOCUMENT, { id })).data!.user.document).to.equal(null);
      expect(errorOf(await gql(ann, UPDATE, { id, input: { data: {} } })).extensions.code).to.equal('NOT_FOUND');
      expect(errorOf(await gql(ann, DELETE, { id })).extensions.code).to.equal('NOT_FOUND');
    });
  });

  describe('uniquePerVault (rule 6, contract 8)', () => {
    it('a second create with the same schemaRef collides when either has the flag; after delete it is free', async () => {
      const user = await registered();
      const ref = `${BASE}/PersonBirth.json`;
      const first = await create(user, { name: 'a', schemaRef: ref, data: birth, uniquePerVault: true });
      const id = first.data!.user.document.create.id;
      for (const flag of [true, false]) {
        const e = errorOf(await create(user, { name: 'b', schemaRef: ref, data: birth, uniquePerVault: flag }));
        expect(e.extensions.code).to.equal('DOCUMENT_SCHEMA_EXISTS');
        expect(e.message).to.equal('document schema already exists in vault');
      }
      expect(
        await create(await registered(), { name: 'other vault', schemaRef: ref, data: birth, uniquePerVault: true }),
      ).to.not.have.property('errors');
      await gql(user, DELETE, { id });
      expect(await create(user, { name: 'c', schemaRef: ref, data: birth, uniquePerVault: true })).to.not.have.property('errors');
    });

    it('embedded schemas are compared as canonical JSON; without the flag on either, both creates pass', async () => {
      const user = await registered();
      await create(user, { name: 'a', documentSchema: { type: 'object', required: ['a'] }, data: { a: 1 }, uniquePerVault: true });
      const e = errorOf(await create(user, { name: 'b', documentSchema: { required: ['a'], type: 'object' }, data: { a: 2 } }));
      expect(e.extensions.code).to.equal('DOCUMENT_SCHEMA_EXISTS');
      const ref = `${BASE}/PersonContact.json`;
      await create(user, { name: 'c', schemaRef: ref, data: contact });
      expect(await create(user, { name: 'd', schemaRef: ref, data: contact })).to.not.have.property('errors');
    });

    it('concurrent unique creates: exactly one wins', async () => {
      const user = await registered();
      const results = await Promise.all(
        [1, 2, 3, 4].map((i) =>
          create(user, { name: `n${i}`, schemaRef: `${BASE}/PersonNationality.json`, data: nationality, uniquePerVault: true }),
        ),
      );
      expect(results.filter((r) => !r.errors)).to.have.length(1);
    });
  });

  describe('isolation (contract 0: 404, not 403)', () => {
    it('another user cannot read, update or delete a document: exactly as an unknown id', async () => {
      const id = (
        await create(ann, { name: 'mine', schemaRef: `${BASE}/PersonFullName.json`, data: { givenName: 'Ann', familyName: 'Example' } })
      ).data!.user.document.create.id;
      expect((await gql(bob, DOCUMENT, { id })).data!.user.document).to.equal(null);
      expect(errorOf(await gql(bob, UPDATE, { id, input: { data: {} } })).extensions.code).to.equal('NOT_FOUND');
      expect(errorOf(await gql(bob, DELETE, { id })).extensions.code).to.equal('NOT_FOUND');
      expect(((await gql(bob, DOCUMENTS)).data!.user.documents as Array<{ id: string }>).map((d) => d.id)).to.not.include(id);
      expect((await gql(ann, DOCUMENT, { id })).data!.user.document.version).to.equal(1);
      expect((await gql(bob, DOCUMENT, { id: 'not-a-uuid' })).data!.user.document).to.equal(null);
    });
  });

  it('stores document data only encrypted: the log and the read model hold no plaintext', async () => {
    const secret = `IBAN-MARKER-${randomBytes(6).toString('hex').toUpperCase()}`;
    await create(ann, { name: 'secret', documentSchema: { type: 'object' }, data: { marker: secret } });
    const dump =
      JSON.stringify((await service.db.query('SELECT data, metadata FROM es.events')).rows) +
      JSON.stringify((await service.db.query('SELECT * FROM rm.documents')).rows);
    expect(dump).to.contain('secret');
    expect(dump).to.not.contain(secret);
  });

  it("erasing a vault key: that vault's documents no longer open, other vaults' still do (issue 6)", async () => {
    const [gone, kept] = [await registered(), await registered()];
    const goneId = (await create(gone, { name: 'g', documentSchema: { type: 'object' }, data: { v: 1 } })).data!.user.document.create.id;
    const keptId = (await create(kept, { name: 'k', documentSchema: { type: 'object' }, data: { v: 2 } })).data!.user.document.create.id;
    const vault = (await gql(gone, '{ user { me { userId } } }')).data!.user.me.userId as string;
    await service.domain!.keyring.erase(vault);
    expect((await gql(gone, DOCUMENT, { id: goneId })).data!.user.document).to.equal(null);
    expect((await gql(gone, DOCUMENTS)).data!.user.documents).to.deep.equal([]);
    expect((await gql(kept, DOCUMENT, { id: keptId })).data!.user.document.data).to.deep.equal({ v: 2 });
  });

  it('a hostile embedded schema answers its budget error while other requests keep answering', async () => {
    const hostile = { type: 'string', pattern: '^(a+)+$' };
    const started = Date.now();
    const slow = gql(ann, VALIDATE, { input: { name: 'x', documentSchema: hostile, data: `${'a'.repeat(40)}!` } });
    await new Promise((r) => setTimeout(r, 50));
    let slowDone = false;
    void slow.then(() => {
      slowDone = true;
    });
    const quick = await gql(bob, VALIDATE, {
      input: { name: 'x', schemaRef: `${BASE}/PersonFullName.json`, data: { givenName: 'B', familyName: 'C' } },
    });
    expect(quick.data).to.deep.equal({ user: { document: { validate: { valid: true } } } });
    expect(slowDone, 'the other user was answered while the hostile schema still ran').to.equal(false);
    const e = errorOf(await slow);
    expect(e.extensions.code).to.equal('SCHEMA_INVALID');
    expect(e.message).to.contain('time budget');
    expect(Date.now() - started, 'gave up near its 1.5 s budget, not after the pattern ran out').to.be.below(10_000);
  });

  it('GET /schemas/core lists the 24 built-ins with their $id; each is served', async () => {
    const r = await api.get('/schemas/core');
    const schemas = r.body.schemas as Array<{ name: string; id: string }>;
    expect(schemas).to.have.length(24);
    expect(schemas.map((s) => s.name)).to.include.members([
      'PersonFullName',
      'PersonAddress',
      'PersonBankAccount',
      'LegalEntity',
      'UBOStructure',
    ]);
    const one = await api.get('/schemas/core/PersonFullName.json');
    expect(one.body.$id).to.equal(`${BASE}/PersonFullName.json`);
    expect(one.body.$schema).to.equal('https://json-schema.org/draft/2020-12/schema');
    expect((await api.get('/schemas/core/Nope.json')).status).to.equal(404);
  });
});
