import { expect } from 'chai';
import type { QueryResult, Row } from '../../../src/db/sql.js';
import { readDecoded } from '../../../src/events/decoder.js';
import { requestStream } from '../../../src/events/request-events.js';
import type { CopyWorkers } from '../../../src/workers/copy-workers.js';
import { openWorkerQueue, startWorkers } from '../../support/copy-workers.js';
import type { JobQueue } from '../../../src/workers/queue/queue.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, problem, type OrgClient } from '../org/org-client.js';
import type { Adoption } from '../../../src/copies/copy-view.js';
import { driver, schemaRef, type Manifest, type Proposal, type User } from '../support/driver.js';
import { OutageDb } from '../support/outages.js';
import { startTestService, type TestService } from '../support/service.js';

/** The service's database, able to run something of the test's between one statement's answer and its caller. */
class InterleavingDb extends OutageDb {
  next: { readonly statement: string; readonly run: () => Promise<void> } | null = null;

  override async query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    const answer = await super.query<R>(text, params);
    const next = this.next;
    if (next && text.includes(next.statement)) {
      this.next = null;
      await next.run();
    }
    return answer;
  }
}

const name = (givenName: string) => ({ givenName, familyName: 'Example' });

describe(`update proposals: notice, supersede, dismiss, adopt (spec 2.7, 3.5, 4.3; contract 8; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let queue: JobQueue;
  let workers: CopyWorkers;
  let owner: User;
  let orgId: string;
  let token: string;
  let ann: User;
  let entityId: string;
  let manifest: Manifest;
  let db: InterleavingDb;

  const d = driver({ api: () => api, member: () => token });
  const { gql, ok, createDoc, updateDoc, proposals, keep, suspend, resume, withdraw } = d;
  const nameSlot = () => manifest.slots[0]!.slotId;
  const companySlot = () => manifest.slots[1]!.slotId;
  /** A request of `manifest` to ann, accepted with these grants (slot id → resource ids). */
  const connected = (grants: Record<string, string[]>) => d.connected(manifest.manifestId, ann, grants);
  /** Ann's full name, as a document named Name. */
  const nameDoc = (givenName: string) => createDoc(ann, { name: 'Name', schemaRef: schemaRef('PersonFullName'), data: name(givenName) });
  /** The reaction runs on its own time: polls the open proposals until `done` holds. */
  async function eventually(requestId: string, done: (p: Proposal[]) => boolean): Promise<Proposal[]> {
    for (let i = 0; i < 200; i++) {
      const now = await proposals(requestId);
      if (done(now)) return now;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`proposals never settled: ${JSON.stringify(await proposals(requestId))}`);
  }
  /** Waits until every reaction to what happened so far has run: no job is waiting or running. */
  async function settled(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const depth = await Promise.all(['auto-keep', 'drain'].map((q) => queue.depth(q)));
      if (depth.every((d) => d.waiting + d.active + d.delayed === 0)) {
        await new Promise((r) => setTimeout(r, 300));
        const again = await Promise.all(['auto-keep', 'drain'].map((q) => queue.depth(q)));
        if (again.every((d) => d.waiting + d.active + d.delayed === 0)) return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const adopt = (requestId: string, proposalId: string, as = token) =>
    api.post(`/org/v1/requests/${requestId}/proposals/${proposalId}/adopt`, as);
  const dismiss = (requestId: string, proposalId: string) =>
    api.post(`/org/v1/requests/${requestId}/proposals/${proposalId}/dismiss`, token);

  before(async () => {
    service = await startTestService({ domain: { mailer }, wrapDb: (inner) => (db = new InterleavingDb(inner)) });
    queue = await openWorkerQueue(service);
    workers = await startWorkers(service, queue);
    api = orgClient(service.url, mailer);
    owner = await api.user();
    orgId = await api.organization(owner.token, 'Acme');
    token = await api.signIn(owner.token, orgId);
    const slot = { group: 'KYC', multiple: false, kind: 'schema', verbs: ['keep'], adoption: 'manual' };
    manifest = await d.manifest([
      { ...slot, label: 'Name', target: 'PersonFullName' },
      { ...slot, label: 'Company', target: 'LegalEntityRegistration', subject: 'company', multiple: true },
    ]);
    ann = await api.user();
    entityId = await d.entity(ann, 'Ann GmbH');
  });
  after(async () => {
    await workers.stop();
    await queue.close();
    await service.close();
  });

  it('a new version of a granted record opens a proposal of that version', async () => {
    const doc = await nameDoc('Ann');
    const requestId = await connected({ [nameSlot()]: [doc] });
    await updateDoc(ann, doc, name('Ann 2'));
    const [opened] = await eventually(requestId, (p) => p.length === 1);
    expect(opened).to.deep.include({
      slotId: nameSlot(),
      itemKind: 'schema',
      itemTarget: 'PersonFullName',
      resourceId: doc,
      newVersion: 2,
      participant: null,
    });
  });

  it('a newer version supersedes the open proposal in place, and the request detail lists the newer one', async () => {
    const doc = await nameDoc('Ann');
    const requestId = await connected({ [nameSlot()]: [doc] });
    await updateDoc(ann, doc, name('Ann 2'));
    const [first] = await eventually(requestId, (p) => p.length === 1);
    await updateDoc(ann, doc, name('Ann 3'));
    const [second] = await eventually(requestId, (p) => p[0]?.newVersion === 3);
    expect(await proposals(requestId)).to.have.length(1);
    expect(second!.proposalId).to.not.equal(first!.proposalId);
    const detail = (await d.detail(requestId)).proposals as Array<Record<string, unknown>>;
    const { itemKind: _k, itemTarget: _t, ...summary } = second!;
    expect(detail).to.deep.equal([summary]);
  });

  it('a superseded proposal is decided: adopt answers 409, dismiss false; an unknown id is 404', async () => {
    const doc = await nameDoc('Ann');
    const requestId = await connected({ [nameSlot()]: [doc] });
    await updateDoc(ann, doc, name('Ann 2'));
    const [first] = await eventually(requestId, (p) => p.length === 1);
    await updateDoc(ann, doc, name('Ann 3'));
    await eventually(requestId, (p) => p[0]?.newVersion === 3);
    expect(problem(await adopt(requestId, first!.proposalId))).to.deep.equal({ status: 409, code: 'conflict' });
    expect((await dismiss(requestId, first!.proposalId)).body).to.deep.equal({ dismissed: false });
    expect(problem(await dismiss(requestId, requestId))).to.deep.equal({ status: 404, code: 'not_found' });
  });

  it('dismiss closes it and leaves the copy; dismissing again is false; a later version opens a fresh one', async () => {
    const doc = await nameDoc('Bo');
    const requestId = await connected({ [nameSlot()]: [doc] });
    await updateDoc(ann, doc, name('Bo 2'));
    const [p] = await eventually(requestId, (x) => x.length === 1);
    expect((await dismiss(requestId, p!.proposalId)).body).to.deep.equal({ dismissed: true });
    expect((await dismiss(requestId, p!.proposalId)).body).to.deep.equal({ dismissed: false });
    expect(await proposals(requestId)).to.deep.equal([]);
    await updateDoc(ann, doc, name('Bo 3'));
    const [fresh] = await eventually(requestId, (x) => x.length === 1);
    expect(fresh).to.deep.include({ newVersion: 3 });
    expect(fresh!.proposalId).to.not.equal(p!.proposalId);
  });

  it('adopt: 423 with a cold key and nothing changes; warm, the proposed version is kept and the proposal closes; two at once: one 200, one 409', async () => {
    const doc = await nameDoc('Cy');
    const requestId = await connected({ [nameSlot()]: [doc] });
    await updateDoc(ann, doc, name('Cy 2'));
    const [p] = await eventually(requestId, (x) => x.length === 1);

    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);
    expect(problem(await adopt(requestId, p!.proposalId))).to.deep.equal({ status: 423, code: 'org_sealed' });
    expect(await proposals(requestId)).to.deep.equal([p]);
    token = await api.signIn(owner.token, orgId);
    await settled();

    const other = await api.user();
    expect((await api.put(`/org/v1/members/${other.email}`, token, { permissions: ['request_manage'] })).status).to.equal(200);
    const otherToken = await api.signIn(other.token, orgId);
    const answers = await Promise.all([adopt(requestId, p!.proposalId), adopt(requestId, p!.proposalId, otherToken)]);
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 409]);
    const adoption = answers.find((a) => a.status === 200)!.body;
    expect(adoption).to.deep.include({ sourceResourceId: doc, sourceVersion: 2, state: 'materialized', orgVersion: 1 });
    expect(await proposals(requestId)).to.deep.equal([]);
    expect((await d.copies(requestId)).map((c) => c.data)).to.deep.equal([name('Cy 2')]);
  });

  it("candidate and adopt of the newest version take it from the row read with the proposal: the person's stream is not read", async () => {
    const doc = await nameDoc('Row');
    const requestId = await connected({ [nameSlot()]: [doc] });
    await updateDoc(ann, doc, name('Row 2'));
    const [p] = await eventually(requestId, (x) => x.length === 1);
    await settled();
    db.sent = [];
    const read = await api.get(`/org/v1/requests/${requestId}/proposals/${p!.proposalId}/candidate`, token);
    const kept = await adopt(requestId, p!.proposalId);
    const sent = db.sent;
    db.sent = null;
    expect(read.body).to.deep.include({ version: 2, data: name('Row 2') });
    expect(kept.body).to.deep.include({ sourceVersion: 2, state: 'materialized' });
    expect(sent.filter((r) => r.includes('FROM es.events') && r.includes(`resource-${doc}`))).to.deep.equal([]);
    expect((await d.copies(requestId)).map((c) => c.data)).to.deep.equal([name('Row 2')]);
  });

  it("an adopt into a kept chain takes the chain's and the record's keys from the proposal's read: no statement of its own for them", async () => {
    const doc = await nameDoc('Kept');
    const requestId = await connected({ [nameSlot()]: [doc] });
    expect((await keep(requestId, nameSlot())).status).to.equal(200);
    await updateDoc(ann, doc, name('Kept 2'));
    const [p] = await eventually(requestId, (x) => x.length === 1);
    await settled();
    db.sent = [];
    const kept = await adopt(requestId, p!.proposalId);
    const sent = db.sent;
    db.sent = null;
    expect(kept.body).to.deep.include({ sourceVersion: 2, orgVersion: 2, state: 'materialized' });
    expect(sent.filter((r) => r.includes('keys.vault_keys') && !r.includes('rm.requests'))).to.deep.equal([]);
    expect((await d.copies(requestId)).map((c) => c.data)).to.deep.equal([name('Kept'), name('Kept 2')]);
  });

  it("keeps done before (a drain's), read once after them, close the open proposals they reach and no other (R-KEEP-13)", async () => {
    const doc = await nameDoc('Late');
    const requestId = await connected({ [nameSlot()]: [doc] });
    await updateDoc(ann, doc, name('Late 2'));
    const [p] = await eventually(requestId, (x) => x.length === 1);
    const keeping = service.domain!.copies.keeping;
    const context = {
      occurredAt: new Date().toISOString(),
      actor: { kind: 'system' as const, id: 'drain' },
      correlationId: 'c',
      causationId: null,
    };
    const kept = (version: number) => ({ slotId: nameSlot(), sourceResourceId: doc, sourceVersion: version }) as Adoption;
    await keeping.closeReached(requestId, [kept(1)], context);
    expect(await proposals(requestId), 'version 1 does not reach version 2').to.deep.equal([p]);
    await keeping.closeReached(requestId, [kept(1), kept(2)], context);
    expect(await proposals(requestId)).to.deep.equal([]);
  });

  it('a keep of a version at or past the open proposal closes it', async () => {
    const doc = await nameDoc('Di');
    const requestId = await connected({ [nameSlot()]: [doc] });
    await updateDoc(ann, doc, name('Di 2'));
    await eventually(requestId, (x) => x.length === 1);
    expect((await keep(requestId, nameSlot())).status).to.equal(200);
    expect(await proposals(requestId)).to.deep.equal([]);
  });

  it("a keep that lands between the new-version reaction's check and its proposal: the reaction closes the proposal as kept", async () => {
    const doc = await nameDoc('Ed');
    const requestId = await connected({ [nameSlot()]: [doc] });
    // The reaction has found version 2 kept nowhere; before it opens its proposal, the member keeps
    // version 2, and that keep finds no proposal open to close.
    db.next = {
      statement: 'SELECT max(source_version) AS version FROM rm.adoptions',
      run: async () => {
        const kept = (await keep(requestId, nameSlot())).body as { adoptions: Array<{ sourceVersion: number; state: string }> };
        expect(kept.adoptions.map((a) => [a.sourceVersion, a.state])).to.deep.equal([[2, 'materialized']]);
      },
    };
    await updateDoc(ann, doc, name('Ed 2'));
    for (let i = 0; i < 200 && db.next; i++) await new Promise((r) => setTimeout(r, 50));
    expect(db.next, 'the keep never ran inside the reaction').to.equal(null);
    await settled();
    expect(await proposals(requestId)).to.deep.equal([]);
    const decided = (await readDecoded(service.store, requestStream(requestId))).filter((e) => e.type.startsWith('Proposal'));
    expect(decided.map((e) => (e.type === 'ProposalClosed' ? `closed ${e.data.reason}` : e.type))).to.deep.equal([
      'ProposalOpened',
      'closed kept',
    ]);
  });

  it('on an inactive connection candidate and adopt are 403 adoption_refused; withdrawing the slot closes its proposals', async () => {
    const doc = await nameDoc('Ed');
    const requestId = await connected({ [nameSlot()]: [doc] });
    await updateDoc(ann, doc, name('Ed 2'));
    const [p] = await eventually(requestId, (x) => x.length === 1);
    await suspend(ann, requestId);
    expect(problem(await adopt(requestId, p!.proposalId))).to.deep.equal({ status: 403, code: 'adoption_refused' });
    const candidate = await api.get(`/org/v1/requests/${requestId}/proposals/${p!.proposalId}/candidate`, token);
    expect(problem(candidate)).to.deep.equal({ status: 403, code: 'adoption_refused' });
    await resume(ann, requestId);
    await withdraw(ann, requestId, nameSlot());
    expect(await proposals(requestId)).to.deep.equal([]);
  });

  it('a proposal names the party by its alias; an edit made while the recipient could not answer for it raises none, and regaining the role replays nothing', async () => {
    const reg = await createDoc(ann, {
      name: 'Reg',
      owner: entityId,
      schemaRef: schemaRef('LegalEntityRegistration'),
      data: { registrationNumber: 'HRB 1', country: 'DE' },
    });
    const requestId = await connected({ [companySlot()]: [reg] });
    await updateDoc(ann, reg, { registrationNumber: 'HRB 2', country: 'DE' });
    const [p] = await eventually(requestId, (x) => x.length === 1);
    const alias = ((await d.detail(requestId)).items as Array<{ records: Array<{ participant: { alias: string } }> }>)[1]!.records[0]!
      .participant.alias;
    expect(p!.participant).to.deep.include({ alias, type: 'legal_entity' });
    expect((await dismiss(requestId, p!.proposalId)).body).to.deep.equal({ dismissed: true });

    const partner = await api.user();
    const setRole = async (u: User, email: string) =>
      ok(
        await gql(u, `mutation { user { entity { setMember(entityId: "${entityId}", email: "${email}", role: MANAGER) { entityId } } } }`),
      );
    await setRole(ann, partner.email);
    ok(await gql(partner, `mutation { user { entity { removeMember(entityId: "${entityId}", email: "${ann.email}") { entityId } } } }`));
    await updateDoc(partner, reg, { registrationNumber: 'HRB 3', country: 'DE' });
    await settled();
    expect(await proposals(requestId)).to.deep.equal([]);
    await setRole(partner, ann.email);
    await settled();
    expect(await proposals(requestId)).to.deep.equal([]);
  });

  it("candidate reads the proposed version and writes one receipt on the person's side; nothing else writes one", async () => {
    const doc = await nameDoc('Flo');
    const requestId = await connected({ [nameSlot()]: [doc] });
    await updateDoc(ann, doc, name('Flo 2'));
    const [p] = await eventually(requestId, (x) => x.length === 1);
    const receipts = async () =>
      ok(await gql(ann, '{ user { receipts { resourceId version organizationId clientId readAt } } }')).user.receipts as Array<
        Record<string, unknown>
      >;
    const before = (await receipts()).length;
    const candidate = (as = token) => api.get(`/org/v1/requests/${requestId}/proposals/${p!.proposalId}/candidate`, as);

    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);
    expect(problem(await candidate())).to.deep.equal({ status: 423, code: 'org_sealed' });
    token = await api.signIn(owner.token, orgId);
    await settled();

    const read = await candidate();
    expect(read.status, JSON.stringify(read.body)).to.equal(200);
    expect(read.body).to.deep.equal({
      proposal: p,
      version: 2,
      name: 'Name',
      schemaRef: schemaRef('PersonFullName'),
      data: name('Flo 2'),
    });
    const after = await receipts();
    expect(after).to.have.length(before + 1);
    expect(after.at(-1)).to.deep.include({ resourceId: doc, version: 2, organizationId: orgId, clientId: null });

    // List, detail, keep, copies, correct, adopt and dismiss write none.
    await proposals(requestId);
    await api.get(`/org/v1/requests/${requestId}`, token);
    await api.get('/org/v1/requests', token);
    const kept = await adopt(requestId, p!.proposalId);
    expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
    await api.get(`/org/v1/requests/${requestId}/copies`, token);
    await d.correct(requestId, nameSlot(), {
      expectedSourceVersion: 2,
      expectedOrgVersion: 1,
      data: name('Ours'),
    });
    // Dismissing a proposal already decided (adopted) changes nothing.
    expect((await dismiss(requestId, p!.proposalId)).body).to.deep.equal({ dismissed: false });
    expect(await receipts()).to.have.length(before + 1);
    // A decided proposal's candidate is a conflict.
    expect(problem(await candidate())).to.deep.equal({ status: 409, code: 'conflict' });
  });
});
