import { expect } from 'chai';
import type { QueryResult, Row } from '../../../src/db/sql.js';
import { requestStream } from '../../../src/events/request-events.js';
import { SqlEventStore } from '../../../src/events/sql/sql-event-store.js';
import { allProjectors } from '../../../src/projections/index.js';
import { inlineProjection } from '../../../src/projections/inline.js';
import { mainBackend } from '../../support/databases.js';
import { newEvent } from '../../support/events.js';
import type { Reply } from '../../support/http.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { fileClient } from '../files/file-client.js';
import { orgClient, problem, type OrgClient } from '../org/org-client.js';
import { driver, schemaRef, type Adoption, type Manifest, type User } from '../support/driver.js';
import { OutageDb } from '../support/outages.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * The service's database, where another writer appends to a stream (`contended.stream`) after
 * every read of it that the service makes, before the service sees the answer: whatever the
 * service then decides on that stream, its append finds the stream moved.
 */
class ContendedDb extends OutageDb {
  contended: { readonly stream: string; readonly append: () => Promise<unknown> } | null = null;

  override async query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    const answer = await super.query<R>(text, params);
    const contended = this.contended;
    if (contended && text.includes('FROM es.events') && params?.[0] === contended.stream) await contended.append();
    return answer;
  }
}

const slot = (target: string, extra: Record<string, unknown> = {}) => ({
  label: target,
  group: 'KYC',
  multiple: false,
  kind: 'schema',
  target,
  verbs: ['fill', 'keep'],
  adoption: 'manual',
  ...extra,
});
/** The manifest's slots, by index: ann's name, her companies, her address (fill only) and her passport scan (a file). */
const [NAME, COMPANY, ADDRESS, PASSPORT] = [0, 1, 2, 3];
const name = (givenName: string) => ({ givenName, familyName: 'Example' });
/** The streams of the organization's side: its copies' chains, the requests, its attachments, itself and its manifests. */
const ORGANIZATION_STREAM = /^(chain|request|attachment|org|manifest)-/;

describe(`keeping copies: keep, drain, copies, download, correct (spec 2.5, 2.6, 3.4, 4.3; contract 4, 8; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let owner: User;
  let orgId: string;
  let token: string;
  let ann: User;
  let manifest: Manifest;
  let entityId: string;
  let db: ContendedDb;

  const d = driver({ api: () => api, member: () => token, log: () => service.db });
  const { gql, ok, createDoc, updateDoc, connected, keep, kept, correct, drain, detail, copies, entity } = d;
  const { revoke, suspend, withdraw, mark, appendedSince, eventsSince } = d;
  const slotId = (i: number) => manifest.slots[i]!.slotId;
  /** A request of `manifest` to ann, accepted with these grants (slot id → resource ids). */
  const annConnected = (grants: Record<string, string[]>) => connected(manifest.manifestId, ann, grants);
  /** Ann's full name, as a document named Name. */
  const nameDoc = (givenName: string) => createDoc(ann, { name: 'Name', schemaRef: schemaRef('PersonFullName'), data: name(givenName) });

  /**
   * A request granting one document of ann's on `slots` slots, each kept while the key was cold (so
   * pending), then revoked by ann; the key warm again, ready for the drain.
   */
  async function pendingThenRevoked(slots: number, givenName: string): Promise<string> {
    const many = await d.manifest(Array.from({ length: slots }, (_, i) => slot('PersonFullName', { label: `Name ${i}` })));
    const doc = await nameDoc(givenName);
    const requestId = await connected(many.manifestId, ann, Object.fromEntries(many.slots.map((s) => [s.slotId, [doc]])));
    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);
    for (const s of many.slots) await keep(requestId, s.slotId);
    await revoke(ann, requestId);
    token = await api.signIn(owner.token, orgId);
    return requestId;
  }

  before(async () => {
    service = await startTestService({ domain: { mailer }, wrapDb: (inner) => (db = new ContendedDb(inner)) });
    api = orgClient(service.url, mailer);
    owner = await api.user();
    orgId = await api.organization(owner.token, 'Acme');
    token = await api.signIn(owner.token, orgId);
    manifest = await d.manifest([
      slot('PersonFullName'),
      slot('LegalEntityRegistration', { subject: 'company', multiple: true }),
      slot('PersonAddress', { verbs: ['fill'] }),
      { label: 'Passport', group: 'KYC', multiple: false, kind: 'file', target: 'PassportScan', verbs: ['keep'], adoption: 'manual' },
    ]);
    ann = await api.user();
    entityId = await entity(ann, 'Ann GmbH');
  });
  after(() => service.close());

  it('keep copies the granted record into the organization: materialized at orgVersion 1, and a retry keeps nothing twice', async () => {
    const doc = await nameDoc('Ann');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    const first = await keep(requestId, slotId(NAME));
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    const [adoption] = first.body.adoptions as Adoption[];
    expect(adoption).to.deep.include({
      slotId: slotId(NAME),
      sourceResourceId: doc,
      sourceVersion: 1,
      orgVersion: 1,
      resourceType: 'document',
      state: 'materialized',
      participant: null,
    });
    expect(adoption!.orgResourceId).to.be.a('string').and.not.equal(doc);
    expect(first.body.skipped).to.deep.equal([]);

    const since = await mark();
    const again = await keep(requestId, slotId(NAME));
    expect(again.status).to.equal(200);
    expect(again.body.adoptions).to.deep.equal([adoption]);
    expect(await appendedSince(since), 'a retried keep appends nothing').to.deep.equal([]);

    expect((await detail(requestId)).adoptions).to.deep.equal([adoption]);
  });

  it("a keep of a document's newest version seals it from the row read with its grant: the person's stream is not read", async () => {
    const doc = await nameDoc('Row');
    await updateDoc(ann, doc, name('Row2'));
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    db.sent = [];
    const kept = await keep(requestId, slotId(NAME));
    const sent = db.sent;
    db.sent = null;
    expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
    expect((kept.body.adoptions as Adoption[]).map((a) => a.sourceVersion)).to.deep.equal([2]);
    expect(sent.filter((r) => r.includes('FROM es.events') && r.includes(`resource-${doc}`))).to.deep.equal([]);
    const [copy] = await copies(requestId);
    expect(copy!.data).to.deep.equal(name('Row2'));
  });

  it("a keep into a chain that has its key takes both keys from the request's read: no statement of its own for them", async () => {
    const doc = await nameDoc('First');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    /** Statements on the keys other than the request's read, which brings them along. */
    const ownKeyStatements = (sent: readonly string[]) => sent.filter((r) => r.includes('keys.vault_keys') && !r.includes('rm.requests'));
    db.sent = [];
    expect((await keep(requestId, slotId(NAME))).status).to.equal(200);
    expect(ownKeyStatements(db.sent), "a new chain's key is made").to.have.length(1);
    await updateDoc(ann, doc, name('Second'));
    db.sent = [];
    const kept = await keep(requestId, slotId(NAME));
    const sent = db.sent;
    db.sent = null;
    expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
    expect((kept.body.adoptions as Adoption[]).map((a) => [a.sourceVersion, a.orgVersion])).to.deep.equal([[2, 2]]);
    expect(ownKeyStatements(sent)).to.deep.equal([]);
    expect((await copies(requestId)).map((c) => c.data)).to.deep.equal([name('First'), name('Second')]);
  });

  it("a correct naming its record takes the chain's key from the request's read: no statement of its own for it", async () => {
    const doc = await nameDoc('Cora');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    expect((await keep(requestId, slotId(NAME))).status).to.equal(200);
    db.sent = [];
    const fixed = await correct(requestId, slotId(NAME), {
      sourceResourceId: doc,
      expectedSourceVersion: 1,
      expectedOrgVersion: 1,
      data: name('Corah'),
    });
    const sent = db.sent;
    db.sent = null;
    expect(fixed.status, JSON.stringify(fixed.body)).to.equal(200);
    expect(sent.filter((r) => r.includes('keys.vault_keys') && !r.includes('rm.requests'))).to.deep.equal([]);
    expect((await copies(requestId))[0]!.currentData).to.deep.equal(name('Corah'));
  });

  it("a keep of several records takes the first one's keys from the request's read, and each later one reads its own (R-ERAS-03)", async () => {
    const registration = (n: number) => ({ registrationNumber: `HRB ${n}`, country: 'DE' });
    const regs = [];
    for (const n of [1, 2])
      regs.push(
        await createDoc(ann, { name: `Reg ${n}`, owner: entityId, schemaRef: schemaRef('LegalEntityRegistration'), data: registration(n) }),
      );
    const requestId = await annConnected({ [slotId(COMPANY)]: regs });
    expect((await keep(requestId, slotId(COMPANY))).status).to.equal(200);
    for (const [i, reg] of regs.entries()) await updateDoc(ann, reg, registration(10 + i));
    db.sent = [];
    const kept = await keep(requestId, slotId(COMPANY));
    const sent = db.sent;
    db.sent = null;
    expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
    expect((kept.body.adoptions as Adoption[]).map((a) => [a.sourceVersion, a.orgVersion])).to.deep.equal([
      [2, 2],
      [2, 2],
    ]);
    expect(sent.filter((r) => r.includes('keys.vault_keys') && !r.includes('rm.requests'))).to.have.length(1);
  });

  it('copies opens each kept version with the organization key; correct appends the next version, origin correction', async () => {
    const doc = await nameDoc('Ann');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    expect((await keep(requestId, slotId(NAME))).status).to.equal(200);
    const [copy] = await copies(requestId);
    expect(copy).to.deep.include({
      name: 'Name',
      schemaRef: schemaRef('PersonFullName'),
      data: name('Ann'),
      orgVersion: 1,
      origin: 'copy',
      currentOrgVersion: 1,
      currentOrigin: 'copy',
      currentData: name('Ann'),
      participant: null,
    });
    expect(copy!.resourceId).to.equal(copy!.adoption.orgResourceId);

    const fixed = await correct(requestId, slotId(NAME), {
      sourceResourceId: doc,
      expectedSourceVersion: 1,
      expectedOrgVersion: 1,
      data: name('Anna'),
    });
    expect(fixed.status, JSON.stringify(fixed.body)).to.equal(200);
    expect(fixed.body).to.deep.equal({ adoption: copy!.adoption, orgVersion: 2 });
    const [after] = await copies(requestId);
    expect(after).to.deep.include({
      data: name('Ann'),
      orgVersion: 1,
      currentOrgVersion: 2,
      currentOrigin: 'correction',
      currentData: name('Anna'),
    });

    // sourceResourceId may be left out: the slot holds one record.
    const again = await correct(requestId, slotId(NAME), { expectedSourceVersion: 1, expectedOrgVersion: 2, data: name('Annie') });
    expect(again.body.orgVersion).to.equal(3);
    // The person's document is untouched.
    const mine = ok(await gql(ann, 'query($id: ID!) { user { document(id: $id) { version data } } }', { id: doc })).user.document;
    expect(mine).to.deep.equal({ version: 1, data: name('Ann') });
  });

  it('correct refuses, writing nothing: a stale head or source (409 version_conflict), data off the schema (400), no copy (403)', async () => {
    const doc = await nameDoc('Ann');
    const other = await createDoc(ann, { name: 'Other', schemaRef: schemaRef('PersonFullName'), data: name('Bo') });
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    const noCopy = await correct(requestId, slotId(NAME), { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('X') });
    expect(problem(noCopy)).to.deep.equal({ status: 403, code: 'adoption_refused' });
    expect((await keep(requestId, slotId(NAME))).status).to.equal(200);
    const since = await mark();

    const stale = await correct(requestId, slotId(NAME), { expectedSourceVersion: 1, expectedOrgVersion: 2, data: name('X') });
    expect(problem(stale)).to.deep.equal({ status: 409, code: 'version_conflict' });
    const bad = await correct(requestId, slotId(NAME), { expectedSourceVersion: 1, expectedOrgVersion: 1, data: { givenName: 7 } });
    expect(problem(bad)).to.deep.equal({ status: 400, code: 'invalid_request' });
    expect(bad.body.detail).to.match(/schema/);
    const notGranted = await correct(requestId, slotId(NAME), {
      sourceResourceId: other,
      expectedSourceVersion: 1,
      expectedOrgVersion: 1,
      data: name('X'),
    });
    expect(problem(notGranted)).to.deep.equal({ status: 403, code: 'adoption_refused' });
    const notAddressed = await correct(requestId, slotId(ADDRESS), { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('X') });
    expect(problem(notAddressed).status).to.equal(403);
    expect(await appendedSince(since), 'nothing written').to.deep.equal([]);
  });

  it('correct after the person published version 2: version 1 is stale (409 version_conflict) until version 2 is kept', async () => {
    const doc = await nameDoc('Ann');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    expect((await keep(requestId, slotId(NAME))).status).to.equal(200);
    await updateDoc(ann, doc, name('Ann2'));
    const moved = await correct(requestId, slotId(NAME), { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('X') });
    expect(problem(moved)).to.deep.equal({ status: 409, code: 'version_conflict' });
    expect((await kept(requestId, slotId(NAME)))[0]).to.deep.include({ sourceVersion: 2, orgVersion: 2 });
    const fixed = await correct(requestId, slotId(NAME), { expectedSourceVersion: 2, expectedOrgVersion: 2, data: name('Ann B') });
    expect(fixed.status, JSON.stringify(fixed.body)).to.equal(200);
    expect((fixed.body.adoption as Adoption).sourceVersion).to.equal(2);
  });

  it('20 concurrent corrects with the same expected versions: one 200, nineteen 409, one new version', async () => {
    const doc = await nameDoc('Ann');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    expect((await keep(requestId, slotId(NAME))).status).to.equal(200);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        correct(requestId, slotId(NAME), { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name(`N${i}`) }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, ...Array<number>(19).fill(409)]);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.code === 'version_conflict')).to.equal(true);
    const [copy] = await copies(requestId);
    expect(copy!.currentOrgVersion).to.equal(2);
  });

  it('20 concurrent keeps of one version: one adoption, every caller answered 200 with it', async () => {
    const doc = await nameDoc('Ann');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    const answers = await Promise.all(Array.from({ length: 20 }, () => keep(requestId, slotId(NAME))));
    expect(answers.map((a) => a.status)).to.deep.equal(Array<number>(20).fill(200));
    const ids = new Set(answers.map((a) => (a.body.adoptions as Adoption[])[0]!.adoptionId));
    expect(ids.size).to.equal(1);
    const [copy] = await copies(requestId);
    expect(copy!.currentOrgVersion).to.equal(1);
    expect(await copies(requestId)).to.have.length(1);
  });

  it("keep needs the slot's keep verb (403 adoption_refused); an unknown or foreign request or slot is 404", async () => {
    const doc = await createDoc(ann, {
      name: 'Home',
      schemaRef: schemaRef('PersonAddress'),
      data: { street: 'Main 1', locality: 'X', country: 'DE' },
    });
    const requestId = await annConnected({ [slotId(ADDRESS)]: [doc] });
    expect(problem(await keep(requestId, slotId(ADDRESS)))).to.deep.equal({ status: 403, code: 'adoption_refused' });
    expect(problem(await api.post(`/org/v1/requests/${requestId}/slots/${requestId}/adopt`, token))).to.deep.equal({
      status: 404,
      code: 'not_found',
    });
    const correction = { expectedSourceVersion: 1, expectedOrgVersion: 1, data: {} };
    for (const verb of ['adopt', 'correct'])
      expect(problem(await api.post(`/org/v1/requests/${requestId}/slots/not-a-slot/${verb}`, token, correction)), verb).to.deep.equal({
        status: 404,
        code: 'not_found',
      });
    const rivalOwner = await api.user();
    const rivalToken = await api.signIn(rivalOwner.token, await api.organization(rivalOwner.token, 'Rival'));
    expect(problem(await keep(requestId, slotId(NAME), { as: rivalToken }))).to.deep.equal({ status: 404, code: 'not_found' });
    expect(problem(await api.get(`/org/v1/requests/${requestId}/copies`, rivalToken))).to.deep.equal({ status: 404, code: 'not_found' });
  });

  it('with {participant}, keep takes only that party; a record the recipient no longer answers for is skipped, and one alone is 403', async () => {
    const reg = await createDoc(ann, {
      name: 'Reg',
      owner: entityId,
      schemaRef: schemaRef('LegalEntityRegistration'),
      data: { registrationNumber: 'HRB 1', country: 'DE' },
    });
    const requestId = await annConnected({ [slotId(COMPANY)]: [reg] });
    const alias = ((await detail(requestId)).items as Array<{ records: Array<{ participant: { alias: string } }> }>)[1]!.records[0]!
      .participant.alias;
    const nobody = await keep(requestId, slotId(COMPANY), { body: { participant: 'p_nobody' } });
    expect(problem(nobody)).to.deep.equal({ status: 403, code: 'adoption_refused' });
    const party = await keep(requestId, slotId(COMPANY), { body: { participant: alias } });
    expect(party.status, JSON.stringify(party.body)).to.equal(200);
    expect((party.body.adoptions as Adoption[])[0]!.participant).to.deep.include({ alias, type: 'legal_entity' });

    // Ann hands the company to someone else and leaves: she can no longer answer for it.
    const heir = await api.user();
    ok(
      await gql(
        ann,
        `mutation { user { entity { setMember(entityId: "${entityId}", email: "${heir.email}", role: MANAGER) { entityId } } } }`,
      ),
    );
    ok(await gql(ann, `mutation { user { entity { removeMember(entityId: "${entityId}", email: "${ann.email}") { entityId } } } }`));
    const refused = await keep(requestId, slotId(COMPANY));
    expect(problem(refused)).to.deep.equal({ status: 403, code: 'participant_ineligible' });
    // What was kept stays readable.
    expect((await copies(requestId))[0]!.data).to.deep.equal({ registrationNumber: 'HRB 1', country: 'DE' });
  });

  it('with a cold key, keep is pending (no orgResourceId, orgVersion or materializedAt) and copies is 423; drain keeps it once warm', async () => {
    const doc = await nameDoc('Cold');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);

    const [pending] = await kept(requestId, slotId(NAME));
    expect(pending).to.include({ state: 'pending', sourceVersion: 1 });
    expect(pending).to.not.have.any.keys('orgResourceId', 'orgVersion', 'materializedAt');
    expect((await detail(requestId)).adoptions).to.deep.equal([pending]);
    expect(problem(await api.get(`/org/v1/requests/${requestId}/copies`, token))).to.deep.equal({ status: 423, code: 'org_sealed' });
    const fix = await correct(requestId, slotId(NAME), { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('X') });
    expect(problem(fix)).to.deep.equal({ status: 423, code: 'org_sealed' });
    expect((await drain(requestId)).body).to.deep.equal({
      materialized: 0,
      stillPending: 1,
    });
    expect((await keep(requestId, slotId(NAME))).body.adoptions, 'a retried cold keep pends nothing twice').to.deep.equal([pending]);

    token = await api.signIn(owner.token, orgId);
    expect((await drain(requestId)).body).to.deep.equal({ materialized: 1, stillPending: 0 });
    const [copy] = await copies(requestId);
    expect(copy!.adoption).to.deep.include({
      adoptionId: pending!.adoptionId,
      state: 'materialized',
      orgVersion: 1,
      adoptedAt: pending!.adoptedAt,
    });
    expect(copy!.data).to.deep.equal(name('Cold'));
  });

  it("a drain keeps a pended newest version from the row read with the request's grants: the person's stream is not read", async () => {
    const doc = await nameDoc('Cold row');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);
    expect((await kept(requestId, slotId(NAME))).map((a) => a.state)).to.deep.equal(['pending']);
    db.sent = [];
    token = await api.signIn(owner.token, orgId);
    const drained = await drain(requestId);
    const sent = db.sent;
    db.sent = null;
    expect(drained.status).to.equal(200);
    expect(((await detail(requestId)).adoptions as Adoption[]).map((a) => a.state)).to.deep.equal(['materialized']);
    expect(sent.filter((r) => r.includes('FROM es.events') && r.includes(`resource-${doc}`))).to.deep.equal([]);
    expect((await copies(requestId)).map((c) => c.data)).to.deep.equal([name('Cold row')]);
  });

  it('a drain reads the keys of all its chains and their records in one statement', async () => {
    const many = await d.manifest([0, 1, 2].map((i) => slot('PersonFullName', { label: `Name ${i}` })));
    const docs = await Promise.all(['A', 'B', 'C'].map((given) => nameDoc(given)));
    const requestId = await connected(many.manifestId, ann, Object.fromEntries(many.slots.map((s, i) => [s.slotId, [docs[i]!]])));
    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);
    for (const s of many.slots) await keep(requestId, s.slotId);
    token = await api.signIn(owner.token, orgId);
    db.sent = [];
    const drained = await drain(requestId);
    const sent = db.sent;
    db.sent = null;
    expect(drained.body).to.deep.equal({ materialized: 3, stillPending: 0 });
    expect(sent.filter((r) => r.includes('keys.vault_keys'))).to.have.length(1);
    expect((await copies(requestId)).map((c) => c.data).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).to.deep.equal(
      ['A', 'B', 'C'].map(name),
    );
  });

  it("a drain keeps a record's pended versions in the order they were pended, each once", async () => {
    const doc = await nameDoc('One');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);
    await keep(requestId, slotId(NAME));
    for (const given of ['Two', 'Three']) {
      await updateDoc(ann, doc, name(given));
      await keep(requestId, slotId(NAME));
    }
    expect(((await detail(requestId)).adoptions as Adoption[]).map((a) => [a.sourceVersion, a.state])).to.deep.equal([
      [1, 'pending'],
      [2, 'pending'],
      [3, 'pending'],
    ]);

    token = await api.signIn(owner.token, orgId);
    expect((await drain(requestId)).body).to.deep.equal({ materialized: 3, stillPending: 0 });
    const adoptions = ((await detail(requestId)).adoptions as Adoption[]).map((a) => [a.sourceVersion, a.orgVersion, a.state]);
    expect(adoptions).to.deep.equal([
      [1, 1, 'materialized'],
      [2, 2, 'materialized'],
      [3, 3, 'materialized'],
    ]);
    expect((await drain(requestId)).body, 'drained again: nothing left').to.deep.equal({ materialized: 0, stillPending: 0 });
  });

  it('a drain of a revoked request discards every pending keep, its chains at once, and keeps none (R-CONS-02)', async () => {
    const requestId = await pendingThenRevoked(12, 'Many');
    const since = await mark();
    expect((await drain(requestId)).body).to.deep.equal({ materialized: 0, stillPending: 0 });
    expect(await appendedSince(since)).to.deep.equal(Array.from({ length: 12 }, () => 'AdoptionDiscarded'));
  });

  it('a discard whose request keeps changing under it decides nothing: the lapsed keeps stay pending, none kept; the next drain discards them (R-CONS-02)', async () => {
    const requestId = await pendingThenRevoked(2, 'Contended');

    // Another instance's writes: the service's memory of the request goes stale at once, and every read of it after.
    const other = (await SqlEventStore.open(service.t.db)).withInline(inlineProjection(allProjectors, service.engine.schema));
    const stream = requestStream(requestId).id;
    const append = () => other.appendToStream(stream, [newEvent('RequestRevoked', { requestId })], 'any');
    await append();
    db.contended = { stream, append };
    const since = await mark();
    try {
      expect((await drain(requestId)).body).to.deep.equal({ materialized: 0, stillPending: 2 });
    } finally {
      db.contended = null;
    }
    expect(new Set(await appendedSince(since)), 'the other writer’s events alone').to.deep.equal(new Set(['RequestRevoked']));

    const after = await mark();
    expect((await drain(requestId)).body).to.deep.equal({ materialized: 0, stillPending: 0 });
    expect(await appendedSince(after)).to.deep.equal(['AdoptionDiscarded', 'AdoptionDiscarded']);
  });

  it('a kept file: its version bytes download as an attachment; a document adoption is 400 unsupported_item; a pending one 403', async () => {
    const files = fileClient(service.url);
    const upload = await files.upload(ann.token, { fileName: 'passport.pdf', label: 'Passport' }, Buffer.from('%PDF-passport-v1'));
    expect(upload.status, JSON.stringify(upload.json)).to.equal(201);
    const fileId = upload.json.fileId as string;
    const doc = await nameDoc('Ann');
    const requestId = await annConnected({ [slotId(NAME)]: [doc], [slotId(PASSPORT)]: [fileId] });

    const [fileAdoption] = await kept(requestId, slotId(PASSPORT));
    expect(fileAdoption).to.deep.include({ resourceType: 'file', state: 'materialized', orgVersion: 1 });
    const download = await fetch(`${service.url}/org/v1/requests/${requestId}/copies/${fileAdoption!.adoptionId}/download`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-disposition')).to.match(/^attachment; filename="passport.pdf"/);
    expect(Buffer.from(await download.arrayBuffer()).toString()).to.equal('%PDF-passport-v1');
    const copy = (await copies(requestId)).find((c) => c.adoption.resourceType === 'file')!;
    expect(copy.data).to.deep.equal({ label: 'Passport', fileName: 'passport.pdf', mimeType: 'application/octet-stream', fileSize: 16 });
    expect(copy).to.not.have.property('currentData');

    const [docAdoption] = await kept(requestId, slotId(NAME));
    const asDoc = await api.get(`/org/v1/requests/${requestId}/copies/${docAdoption!.adoptionId}/download`, token);
    expect(problem(asDoc)).to.deep.equal({ status: 400, code: 'unsupported_item' });
    const onFile = await correct(requestId, slotId(PASSPORT), { expectedSourceVersion: 1, expectedOrgVersion: 1, data: {} });
    expect(problem(onFile)).to.deep.equal({ status: 403, code: 'adoption_refused' });
  });

  it('revoking the connection leaves every kept copy readable', async () => {
    const doc = await nameDoc('Kept');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    expect((await keep(requestId, slotId(NAME))).status).to.equal(200);
    await revoke(ann, requestId);
    expect(problem(await keep(requestId, slotId(NAME)))).to.deep.equal({ status: 403, code: 'adoption_refused' });
    expect((await copies(requestId))[0]!.data).to.deep.equal(name('Kept'));
  });

  it("the files route lists kept file versions and the organization's own attachments, newest first; attaching needs a warm key", async () => {
    const files = fileClient(service.url);
    const upload = await files.upload(ann.token, { fileName: 'scan.pdf', label: 'Passport' }, Buffer.from('v1'));
    const fileId = upload.json.fileId as string;
    const requestId = await annConnected({ [slotId(PASSPORT)]: [fileId] });
    const [v1] = await kept(requestId, slotId(PASSPORT));
    expect((await files.addVersion(ann.token, fileId, { fileName: 'scan-2.pdf' }, Buffer.from('v2!'))).status).to.equal(201);
    const [v2] = await kept(requestId, slotId(PASSPORT));
    expect(v2).to.deep.include({ sourceVersion: 2, orgVersion: 2, orgResourceId: v1!.orgResourceId });

    const attach = (body: Buffer, as = token) =>
      fetch(`${service.url}/org/v1/requests/${requestId}/files?fileName=contract.pdf`, {
        method: 'POST',
        headers: { authorization: `Bearer ${as}`, 'content-type': 'application/pdf' },
        body: new Uint8Array(body),
      });
    const attached = await attach(Buffer.from('our contract'));
    expect(attached.status).to.equal(201);
    const { orgFileId, orgVersion } = (await attached.json()) as { orgFileId: string; orgVersion: number };
    expect(orgVersion).to.equal(1);

    const listed = await api.get(`/org/v1/requests/${requestId}/files`, token);
    expect(listed.status).to.equal(200);
    const [first, second] = listed.body.files as Array<Record<string, unknown> & { versions: Array<Record<string, unknown>> }>;
    expect(first).to.deep.include({ orgFileId, origin: 'attachment' });
    expect(first!.versions).to.have.length(1);
    expect(first!.versions[0]).to.deep.include({ orgVersion: 1, fileName: 'contract.pdf', mimeType: 'application/pdf', fileSize: 12 });
    expect(second).to.deep.include({
      orgFileId: v1!.orgResourceId,
      origin: 'copy',
      slotId: slotId(PASSPORT),
      sourceResourceId: fileId,
      participant: null,
    });
    expect(second!.versions.map((v) => [v.orgVersion, v.sourceVersion, v.adoptionId, v.fileName])).to.deep.equal([
      [2, 2, v2!.adoptionId, 'scan-2.pdf'],
      [1, 1, v1!.adoptionId, 'scan.pdf'],
    ]);
    // The version a copy kept downloads, not the head.
    const old = await fetch(`${service.url}/org/v1/requests/${requestId}/copies/${v1!.adoptionId}/download`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(Buffer.from(await old.arrayBuffer()).toString()).to.equal('v1');

    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);
    const cold = await attach(Buffer.from('later'));
    expect(cold.status).to.equal(423);
    expect((await api.get(`/org/v1/requests/${requestId}/files`, token)).status, 'the list is metadata: readable cold').to.equal(200);
    token = await api.signIn(owner.token, orgId);
  });

  it('matrix: every copy route × lacking request_manage 403, another organization 404, no token 401, a user token 401', async () => {
    const doc = await nameDoc('Ann');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    const [adoption] = await kept(requestId, slotId(NAME));
    const reader = await api.user();
    expect((await api.put(`/org/v1/members/${reader.email}`, token, { permissions: ['request_read'] })).status).to.equal(200);
    const readToken = await api.signIn(reader.token, orgId);
    const rivalOwner = await api.user();
    const rivalToken = await api.signIn(rivalOwner.token, await api.organization(rivalOwner.token, 'Rival'));
    const nameSlot = slotId(NAME);
    const routes: Array<[string, (t?: string) => Promise<Reply>]> = [
      ['adopt', (t) => api.post(`/org/v1/requests/${requestId}/slots/${nameSlot}/adopt`, t)],
      ['drain', (t) => api.post(`/org/v1/requests/${requestId}/adoptions/drain`, t)],
      ['copies', (t) => api.get(`/org/v1/requests/${requestId}/copies`, t)],
      ['download', (t) => api.get(`/org/v1/requests/${requestId}/copies/${adoption!.adoptionId}/download`, t)],
      [
        'correct',
        (t) =>
          api.post(`/org/v1/requests/${requestId}/slots/${nameSlot}/correct`, t, {
            expectedSourceVersion: 1,
            expectedOrgVersion: 1,
            data: name('X'),
          }),
      ],
      ['files', (t) => api.get(`/org/v1/requests/${requestId}/files`, t)],
      ['attach', (t) => api.post(`/org/v1/requests/${requestId}/files?fileName=a.txt`, t)],
    ];
    const since = await mark();
    for (const [route, call] of routes) {
      expect(problem(await call(readToken)), `${route} lacking`).to.deep.equal({ status: 403, code: 'forbidden' });
      expect(problem(await call()), `${route} no token`).to.deep.equal({ status: 401, code: 'unauthenticated' });
      expect(problem(await call(ann.token)), `${route} user token`).to.deep.equal({ status: 401, code: 'unauthenticated' });
      expect(problem(await call(rivalToken)), `${route} foreign`).to.deep.equal({ status: 404, code: 'not_found' });
    }
    expect(await appendedSince(since), 'no refused call wrote anything').to.deep.equal([]);
  });

  it('an id that is no UUID names nothing: every copy and proposal route answers 404 as for an unknown one, after authentication', async () => {
    const doc = await nameDoc('Ids');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    const [adoption] = await kept(requestId, slotId(NAME));
    const nameSlot = slotId(NAME);
    const bad = 'not-a-uuid';
    const calls: Array<[string, (t?: string) => Promise<Reply>]> = [
      ['adopt, request', (t) => api.post(`/org/v1/requests/${bad}/slots/${nameSlot}/adopt`, t)],
      ['adopt, slot', (t) => api.post(`/org/v1/requests/${requestId}/slots/${bad}/adopt`, t)],
      ['drain', (t) => api.post(`/org/v1/requests/${bad}/adoptions/drain`, t)],
      ['copies', (t) => api.get(`/org/v1/requests/${bad}/copies`, t)],
      ['download, adoption', (t) => api.get(`/org/v1/requests/${requestId}/copies/${bad}/download`, t)],
      ['download, request', (t) => api.get(`/org/v1/requests/${bad}/copies/${adoption!.adoptionId}/download`, t)],
      ['files', (t) => api.get(`/org/v1/requests/${bad}/files`, t)],
      ['proposals', (t) => api.get(`/org/v1/requests/${bad}/proposals`, t)],
      ['candidate', (t) => api.get(`/org/v1/requests/${requestId}/proposals/${bad}/candidate`, t)],
      ['dismiss', (t) => api.post(`/org/v1/requests/${requestId}/proposals/${bad}/dismiss`, t)],
    ];
    for (const [route, call] of calls) {
      expect(problem(await call()), `${route} no token`).to.deep.equal({ status: 401, code: 'unauthenticated' });
      expect(problem(await call(token)), `${route} malformed`).to.deep.equal({ status: 404, code: 'not_found' });
    }
  });

  it("a correct's sourceResourceId that is no UUID is 400 invalid_request naming it, and nothing is written", async () => {
    const doc = await nameDoc('Source');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    await kept(requestId, slotId(NAME));
    const since = await mark();
    const fix = await correct(requestId, slotId(NAME), {
      sourceResourceId: 'not-a-uuid',
      expectedSourceVersion: 1,
      expectedOrgVersion: 1,
      data: name('X'),
    });
    expect(problem(fix)).to.deep.equal({ status: 400, code: 'invalid_request' });
    expect(fix.body.detail).to.match(/sourceResourceId/);
    expect(await appendedSince(since)).to.deep.equal([]);
  });

  it("keep, drain, copies and correct write nothing on the person's side", async () => {
    const doc = await nameDoc('Mine');
    const requestId = await annConnected({ [slotId(NAME)]: [doc] });
    const since = await mark();
    expect((await keep(requestId, slotId(NAME))).status).to.equal(200);
    await drain(requestId);
    await copies(requestId);
    await correct(requestId, slotId(NAME), { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('Ours') });
    const personal = (await eventsSince(since)).filter((e) => !ORGANIZATION_STREAM.test(e.streamId));
    expect(
      personal.map((e) => `${e.type} on ${e.streamId}`),
      "no event on any of the person's streams",
    ).to.deep.equal([]);
  });

  for (const lapse of ['withdraw', 'suspend'] as const) {
    it(`after the person's ${lapse}, the copy stays readable as kept and as corrected`, async () => {
      const doc = await nameDoc('Mine');
      const requestId = await annConnected({ [slotId(NAME)]: [doc] });
      expect((await keep(requestId, slotId(NAME))).status).to.equal(200);
      await correct(requestId, slotId(NAME), { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('Ours') });
      if (lapse === 'withdraw') await withdraw(ann, requestId, slotId(NAME));
      else await suspend(ann, requestId);
      expect((await copies(requestId))[0]).to.deep.include({ data: name('Mine'), currentData: name('Ours') });
    });
  }

  it('a retry after standing is regained keeps only what was skipped; what was kept is answered, not copied again', async () => {
    const [alpha, beta] = [await entity(ann, 'Alpha'), await entity(ann, 'Beta')];
    const reg = async (owner: string, n: string) =>
      createDoc(ann, { name: n, owner, schemaRef: schemaRef('LegalEntityRegistration'), data: { registrationNumber: n, country: 'DE' } });
    const requestId = await annConnected({ [slotId(COMPANY)]: [await reg(alpha, 'HRB A'), await reg(beta, 'HRB B')] });
    const partner = await api.user();
    const setMember = async (u: User, email: string, role: string) =>
      ok(await gql(u, `mutation { user { entity { setMember(entityId: "${beta}", email: "${email}", role: ${role}) { entityId } } } }`));
    await setMember(ann, partner.email, 'MANAGER');
    ok(await gql(partner, `mutation { user { entity { removeMember(entityId: "${beta}", email: "${ann.email}") { entityId } } } }`));

    const first = await keep(requestId, slotId(COMPANY));
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body.adoptions).to.have.length(1);
    expect(first.body.skipped).to.have.length(1);
    expect((first.body.skipped as Array<Record<string, unknown>>)[0]).to.include({ reason: 'participant_ineligible' });
    expect((first.body.skipped as Array<Record<string, unknown>>)[0]!.message).to.be.a('string');

    await setMember(partner, ann.email, 'MANAGER');
    const since = await mark();
    const retry = await keep(requestId, slotId(COMPANY));
    expect(retry.body.adoptions).to.have.length(2);
    expect(retry.body.adoptions).to.deep.include((first.body.adoptions as Adoption[])[0]);
    expect(retry.body.skipped).to.deep.equal([]);
    expect(await appendedSince(since), 'one new keep').to.deep.equal(['CopyKept']);
  });

  it('a pending file copy answers download 403 adoption_refused once the key is warm, and 423 while it is cold', async () => {
    const files = fileClient(service.url);
    const fileId = (await files.upload(ann.token, { fileName: 'id.png' }, Buffer.from('png'))).json.fileId as string;
    const requestId = await annConnected({ [slotId(PASSPORT)]: [fileId] });
    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);
    const [pending] = await kept(requestId, slotId(PASSPORT));
    expect(pending!.state).to.equal('pending');
    const download = (as: string) => api.get(`/org/v1/requests/${requestId}/copies/${pending!.adoptionId}/download`, as);
    expect(problem(await download(token))).to.deep.equal({ status: 423, code: 'org_sealed' });
    // No copy workers run in this suite, so the keep stays pending after the sign-in.
    token = await api.signIn(owner.token, orgId);
    expect(problem(await download(token))).to.deep.equal({ status: 403, code: 'adoption_refused' });
    expect((await drain(requestId)).body).to.deep.equal({
      materialized: 1,
      stillPending: 0,
    });
    const bytes = await fetch(`${service.url}/org/v1/requests/${requestId}/copies/${pending!.adoptionId}/download`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(Buffer.from(await bytes.arrayBuffer()).toString()).to.equal('png');
  });
});
