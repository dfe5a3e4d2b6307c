import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import type { Reply } from '../../support/http.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, problem, type OrgClient } from '../org/org-client.js';
import { fileClient } from '../files/file-client.js';
import { startTestService, type TestService } from '../support/service.js';

type Gql = { data?: Record<string, any> | null; errors?: Array<{ message: string; extensions: { code: string } }> };
type User = { email: string; token: string };
type Adoption = {
  adoptionId: string;
  slotId: string;
  sourceResourceId: string;
  sourceVersion: number;
  orgResourceId?: string;
  orgVersion?: number;
  resourceType: string;
  state: string;
  adoptedAt: string;
  materializedAt?: string;
  participant: null | { subjectId: string; type: string; alias: string };
};
type Copy = {
  adoption: Adoption;
  resourceId: string;
  name: string;
  schemaRef: string | null;
  data: Record<string, unknown>;
  orgVersion: number;
  origin: string;
  currentOrgVersion: number;
  currentOrigin: string;
  currentData?: Record<string, unknown>;
  participant: Adoption['participant'];
};

const BASE = 'http://service.test/schemas/core';
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

describe(`keeping copies: keep, drain, copies, download, correct (spec 2.5, 2.6, 3.4, 4.3; contract 4, 8; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let owner: User;
  let orgId: string;
  let token: string;
  let ann: User;
  let manifest: { manifestId: string; slots: Array<{ slotId: string }> };
  let entityId: string;

  const gql = async (u: User, query: string, variables: Record<string, unknown> = {}) =>
    (await api.post('/graphql', u.token, { query, variables })).body as Gql;
  const ok = (r: Gql) => {
    if (r.errors) expect.fail(JSON.stringify(r.errors));
    return r.data!;
  };
  const createDoc = async (input: Record<string, unknown>) =>
    ok(await gql(ann, 'mutation($input: DocumentInput!) { user { document { create(input: $input) { id version } } } }', { input })).user
      .document.create.id as string;
  const updateDoc = async (id: string, data: Record<string, unknown>) =>
    ok(
      await gql(
        ann,
        'mutation($id: ID!, $input: DocumentUpdateInput!) { user { document { update(id: $id, input: $input) { version } } } }',
        {
          id,
          input: { data },
        },
      ),
    ).user.document.update.version as number;
  const eventCount = async () => Number((await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM es.events')).rows[0]!.n);

  /** A request of `manifest` to ann, accepted with these resources per slot index. */
  async function connected(grants: Record<number, string[]>): Promise<string> {
    const sent = await api.post('/org/v1/requests', token, { manifestId: manifest.manifestId, recipientEmail: ann.email });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    const requestId = (sent.body.request as { requestId: string }).requestId;
    const list = Object.entries(grants).map(([i, resourceIds]) => ({ slotId: manifest.slots[Number(i)]!.slotId, resourceIds }));
    ok(
      await gql(ann, 'mutation($r: ID!, $g: [GrantInput!]!) { user { request { accept(requestId: $r, grants: $g) { requestId } } } }', {
        r: requestId,
        g: list,
      }),
    );
    return requestId;
  }
  const keep = (requestId: string, slotIndex = 0, body?: unknown, as = token) =>
    api.post(`/org/v1/requests/${requestId}/slots/${manifest.slots[slotIndex]!.slotId}/adopt`, as, body);
  const copies = async (requestId: string) => {
    const r = await api.get(`/org/v1/requests/${requestId}/copies`, token);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body.copies as Copy[];
  };
  const correct = (requestId: string, slotIndex: number, body: Record<string, unknown>) =>
    api.post(`/org/v1/requests/${requestId}/slots/${manifest.slots[slotIndex]!.slotId}/correct`, token, body);
  const name = (givenName: string) => ({ givenName, familyName: 'Example' });

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    owner = await api.user();
    orgId = await api.organization(owner.token, 'Acme');
    token = await api.signIn(owner.token, orgId);
    const m = await api.post('/org/v1/manifests', token, {
      name: 'KYC',
      retention: 'P30D',
      slots: [
        slot('PersonFullName'),
        slot('LegalEntityRegistration', { subject: 'company', multiple: true }),
        slot('PersonAddress', { verbs: ['fill'] }),
        { label: 'Passport', group: 'KYC', multiple: false, kind: 'file', target: 'PassportScan', verbs: ['keep'], adoption: 'manual' },
      ],
    });
    expect(m.status, JSON.stringify(m.body)).to.equal(201);
    manifest = m.body.manifest as typeof manifest;
    ann = await api.user();
    entityId = ok(await gql(ann, 'mutation { user { entity { create(name: "Ann GmbH") { entityId } } } }')).user.entity.create.entityId;
  });
  after(() => service.close());

  it('keep copies the granted record into the organization: materialized at orgVersion 1, and a retry keeps nothing twice', async () => {
    const doc = await createDoc({ name: 'Name', schemaRef: `${BASE}/PersonFullName.json`, data: name('Ann') });
    const requestId = await connected({ 0: [doc] });
    const first = await keep(requestId);
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    const [adoption] = first.body.adoptions as Adoption[];
    expect(adoption).to.deep.include({
      slotId: manifest.slots[0]!.slotId,
      sourceResourceId: doc,
      sourceVersion: 1,
      orgVersion: 1,
      resourceType: 'document',
      state: 'materialized',
      participant: null,
    });
    expect(adoption!.orgResourceId).to.be.a('string').and.not.equal(doc);
    expect(first.body.skipped).to.deep.equal([]);

    const events = await eventCount();
    const again = await keep(requestId);
    expect(again.status).to.equal(200);
    expect(again.body.adoptions).to.deep.equal([adoption]);
    expect(await eventCount(), 'a retried keep appends nothing').to.equal(events);

    const detail = await api.get(`/org/v1/requests/${requestId}`, token);
    expect(detail.body.adoptions).to.deep.equal([adoption]);
  });

  it('copies opens each kept version with the organization key; correct appends the next version, origin correction', async () => {
    const doc = await createDoc({ name: 'Name', schemaRef: `${BASE}/PersonFullName.json`, data: name('Ann') });
    const requestId = await connected({ 0: [doc] });
    expect((await keep(requestId)).status).to.equal(200);
    const [copy] = await copies(requestId);
    expect(copy).to.deep.include({
      name: 'Name',
      schemaRef: `${BASE}/PersonFullName.json`,
      data: name('Ann'),
      orgVersion: 1,
      origin: 'copy',
      currentOrgVersion: 1,
      currentOrigin: 'copy',
      currentData: name('Ann'),
      participant: null,
    });
    expect(copy!.resourceId).to.equal(copy!.adoption.orgResourceId);

    const fixed = await correct(requestId, 0, {
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
    const again = await correct(requestId, 0, { expectedSourceVersion: 1, expectedOrgVersion: 2, data: name('Annie') });
    expect(again.body.orgVersion).to.equal(3);
    // The person's document is untouched.
    const mine = ok(await gql(ann, 'query($id: ID!) { user { document(id: $id) { version data } } }', { id: doc })).user.document;
    expect(mine).to.deep.equal({ version: 1, data: name('Ann') });
  });

  it('correct refuses, writing nothing: a stale head or source (409 version_conflict), data off the schema (400), no copy (403)', async () => {
    const doc = await createDoc({ name: 'Name', schemaRef: `${BASE}/PersonFullName.json`, data: name('Ann') });
    const other = await createDoc({ name: 'Other', schemaRef: `${BASE}/PersonFullName.json`, data: name('Bo') });
    const requestId = await connected({ 0: [doc] });
    const noCopy = await correct(requestId, 0, { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('X') });
    expect(problem(noCopy)).to.deep.equal({ status: 403, code: 'adoption_refused' });
    expect((await keep(requestId)).status).to.equal(200);
    const events = await eventCount();

    const stale = await correct(requestId, 0, { expectedSourceVersion: 1, expectedOrgVersion: 2, data: name('X') });
    expect(problem(stale)).to.deep.equal({ status: 409, code: 'version_conflict' });
    const bad = await correct(requestId, 0, { expectedSourceVersion: 1, expectedOrgVersion: 1, data: { givenName: 7 } });
    expect(problem(bad)).to.deep.equal({ status: 400, code: 'invalid_request' });
    expect(bad.body.detail).to.match(/schema/);
    const notGranted = await correct(requestId, 0, {
      sourceResourceId: other,
      expectedSourceVersion: 1,
      expectedOrgVersion: 1,
      data: name('X'),
    });
    expect(problem(notGranted)).to.deep.equal({ status: 403, code: 'adoption_refused' });
    const notAddressed = await correct(requestId, 2, { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('X') });
    expect(problem(notAddressed).status).to.equal(403);
    expect(await eventCount(), 'nothing written').to.equal(events);

    // The person publishes version 2: correcting version 1 is stale until it is kept.
    await updateDoc(doc, name('Ann2'));
    const moved = await correct(requestId, 0, { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('X') });
    expect(problem(moved)).to.deep.equal({ status: 409, code: 'version_conflict' });
    const kept = await keep(requestId);
    expect((kept.body.adoptions as Adoption[])[0]).to.deep.include({ sourceVersion: 2, orgVersion: 2 });
    const fixed = await correct(requestId, 0, { expectedSourceVersion: 2, expectedOrgVersion: 2, data: name('Ann B') });
    expect(fixed.status, JSON.stringify(fixed.body)).to.equal(200);
    expect((fixed.body.adoption as Adoption).sourceVersion).to.equal(2);
  });

  it('20 concurrent corrects with the same expected versions: one 200, nineteen 409, one new version', async () => {
    const doc = await createDoc({ name: 'Name', schemaRef: `${BASE}/PersonFullName.json`, data: name('Ann') });
    const requestId = await connected({ 0: [doc] });
    expect((await keep(requestId)).status).to.equal(200);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => correct(requestId, 0, { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name(`N${i}`) })),
    );
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, ...Array<number>(19).fill(409)]);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.code === 'version_conflict')).to.equal(true);
    const [copy] = await copies(requestId);
    expect(copy!.currentOrgVersion).to.equal(2);
  });

  it('20 concurrent keeps of one version: one adoption, every caller answered 200 with it', async () => {
    const doc = await createDoc({ name: 'Name', schemaRef: `${BASE}/PersonFullName.json`, data: name('Ann') });
    const requestId = await connected({ 0: [doc] });
    const answers = await Promise.all(Array.from({ length: 20 }, () => keep(requestId)));
    expect(answers.map((a) => a.status)).to.deep.equal(Array<number>(20).fill(200));
    const ids = new Set(answers.map((a) => (a.body.adoptions as Adoption[])[0]!.adoptionId));
    expect(ids.size).to.equal(1);
    const [copy] = await copies(requestId);
    expect(copy!.currentOrgVersion).to.equal(1);
    expect(await copies(requestId)).to.have.length(1);
  });

  it("keep needs the slot's keep verb (403 adoption_refused); an unknown or foreign request or slot is 404", async () => {
    const doc = await createDoc({
      name: 'Home',
      schemaRef: `${BASE}/PersonAddress.json`,
      data: { street: 'Main 1', locality: 'X', country: 'DE' },
    });
    const requestId = await connected({ 2: [doc] });
    expect(problem(await keep(requestId, 2))).to.deep.equal({ status: 403, code: 'adoption_refused' });
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
    expect(problem(await keep(requestId, 0, undefined, rivalToken))).to.deep.equal({ status: 404, code: 'not_found' });
    expect(problem(await api.get(`/org/v1/requests/${requestId}/copies`, rivalToken))).to.deep.equal({ status: 404, code: 'not_found' });
  });

  it('with {participant}, keep takes only that party; a record the recipient no longer answers for is skipped, and one alone is 403', async () => {
    const reg = await createDoc({
      name: 'Reg',
      owner: entityId,
      schemaRef: `${BASE}/LegalEntityRegistration.json`,
      data: { registrationNumber: 'HRB 1', country: 'DE' },
    });
    const requestId = await connected({ 1: [reg] });
    const detail = await api.get(`/org/v1/requests/${requestId}`, token);
    const alias = (detail.body.items as Array<{ records: Array<{ participant: { alias: string } }> }>)[1]!.records[0]!.participant.alias;
    expect(problem(await keep(requestId, 1, { participant: 'p_nobody' }))).to.deep.equal({ status: 403, code: 'adoption_refused' });
    const kept = await keep(requestId, 1, { participant: alias });
    expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
    expect((kept.body.adoptions as Adoption[])[0]!.participant).to.deep.include({ alias, type: 'legal_entity' });

    // Ann hands the company to someone else and leaves: she can no longer answer for it.
    const heir = await api.user();
    ok(
      await gql(
        ann,
        `mutation { user { entity { setMember(entityId: "${entityId}", email: "${heir.email}", role: MANAGER) { entityId } } } }`,
      ),
    );
    ok(await gql(ann, `mutation { user { entity { removeMember(entityId: "${entityId}", email: "${ann.email}") { entityId } } } }`));
    const refused = await keep(requestId, 1);
    expect(problem(refused)).to.deep.equal({ status: 403, code: 'participant_ineligible' });
    // What was kept stays readable.
    expect((await copies(requestId))[0]!.data).to.deep.equal({ registrationNumber: 'HRB 1', country: 'DE' });
  });

  it('with a cold key, keep is pending (no orgResourceId, orgVersion or materializedAt) and copies is 423; drain keeps it once warm', async () => {
    const doc = await createDoc({ name: 'Name', schemaRef: `${BASE}/PersonFullName.json`, data: name('Cold') });
    const requestId = await connected({ 0: [doc] });
    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);

    const kept = await keep(requestId);
    expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
    const [pending] = kept.body.adoptions as Adoption[];
    expect(pending).to.include({ state: 'pending', sourceVersion: 1 });
    expect(pending).to.not.have.any.keys('orgResourceId', 'orgVersion', 'materializedAt');
    expect((await api.get(`/org/v1/requests/${requestId}`, token)).body.adoptions).to.deep.equal([pending]);
    expect(problem(await api.get(`/org/v1/requests/${requestId}/copies`, token))).to.deep.equal({ status: 423, code: 'org_sealed' });
    const fix = await correct(requestId, 0, { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('X') });
    expect(problem(fix)).to.deep.equal({ status: 423, code: 'org_sealed' });
    expect((await api.post(`/org/v1/requests/${requestId}/adoptions/drain`, token)).body).to.deep.equal({
      materialized: 0,
      stillPending: 1,
    });
    expect((await keep(requestId)).body.adoptions, 'a retried cold keep pends nothing twice').to.deep.equal([pending]);

    token = await api.signIn(owner.token, orgId);
    const drained = await api.post(`/org/v1/requests/${requestId}/adoptions/drain`, token);
    expect(drained.body).to.deep.equal({ materialized: 1, stillPending: 0 });
    const [copy] = await copies(requestId);
    expect(copy!.adoption).to.deep.include({
      adoptionId: pending!.adoptionId,
      state: 'materialized',
      orgVersion: 1,
      adoptedAt: pending!.adoptedAt,
    });
    expect(copy!.data).to.deep.equal(name('Cold'));
  });

  it('a kept file: its version bytes download as an attachment; a document adoption is 400 unsupported_item; a pending one 403', async () => {
    const files = fileClient(service.url);
    const upload = await files.upload(ann.token, { fileName: 'passport.pdf', label: 'Passport' }, Buffer.from('%PDF-passport-v1'));
    expect(upload.status, JSON.stringify(upload.json)).to.equal(201);
    const fileId = upload.json.fileId as string;
    const doc = await createDoc({ name: 'Name', schemaRef: `${BASE}/PersonFullName.json`, data: name('Ann') });
    const requestId = await connected({ 0: [doc], 3: [fileId] });

    const kept = await keep(requestId, 3);
    expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
    const [fileAdoption] = kept.body.adoptions as Adoption[];
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

    const [docAdoption] = (await keep(requestId, 0)).body.adoptions as Adoption[];
    const asDoc = await api.get(`/org/v1/requests/${requestId}/copies/${docAdoption!.adoptionId}/download`, token);
    expect(problem(asDoc)).to.deep.equal({ status: 400, code: 'unsupported_item' });
    const onFile = await correct(requestId, 3, { expectedSourceVersion: 1, expectedOrgVersion: 1, data: {} });
    expect(problem(onFile)).to.deep.equal({ status: 403, code: 'adoption_refused' });
  });

  it('revoking the connection leaves every kept copy readable', async () => {
    const doc = await createDoc({ name: 'Name', schemaRef: `${BASE}/PersonFullName.json`, data: name('Kept') });
    const requestId = await connected({ 0: [doc] });
    expect((await keep(requestId)).status).to.equal(200);
    ok(await gql(ann, 'mutation($r: ID!) { user { request { revoke(requestId: $r) { requestId } } } }', { r: requestId }));
    expect(problem(await keep(requestId))).to.deep.equal({ status: 403, code: 'adoption_refused' });
    expect((await copies(requestId))[0]!.data).to.deep.equal(name('Kept'));
  });

  it("the files route lists kept file versions and the organization's own attachments, newest first; attaching needs a warm key", async () => {
    const files = fileClient(service.url);
    const upload = await files.upload(ann.token, { fileName: 'scan.pdf', label: 'Passport' }, Buffer.from('v1'));
    const fileId = upload.json.fileId as string;
    const requestId = await connected({ 3: [fileId] });
    const [v1] = (await keep(requestId, 3)).body.adoptions as Adoption[];
    expect((await files.addVersion(ann.token, fileId, { fileName: 'scan-2.pdf' }, Buffer.from('v2!'))).status).to.equal(201);
    const [v2] = (await keep(requestId, 3)).body.adoptions as Adoption[];
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
      slotId: manifest.slots[3]!.slotId,
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
    const doc = await createDoc({ name: 'Name', schemaRef: `${BASE}/PersonFullName.json`, data: name('Ann') });
    const requestId = await connected({ 0: [doc] });
    const [adoption] = (await keep(requestId)).body.adoptions as Adoption[];
    const reader = await api.user();
    expect((await api.put(`/org/v1/members/${reader.email}`, token, { permissions: ['request_read'] })).status).to.equal(200);
    const readToken = await api.signIn(reader.token, orgId);
    const rivalOwner = await api.user();
    const rivalToken = await api.signIn(rivalOwner.token, await api.organization(rivalOwner.token, 'Rival'));
    const slotId = manifest.slots[0]!.slotId;
    const routes: Array<[string, (t?: string) => Promise<Reply>]> = [
      ['adopt', (t) => api.post(`/org/v1/requests/${requestId}/slots/${slotId}/adopt`, t)],
      ['drain', (t) => api.post(`/org/v1/requests/${requestId}/adoptions/drain`, t)],
      ['copies', (t) => api.get(`/org/v1/requests/${requestId}/copies`, t)],
      ['download', (t) => api.get(`/org/v1/requests/${requestId}/copies/${adoption!.adoptionId}/download`, t)],
      [
        'correct',
        (t) =>
          api.post(`/org/v1/requests/${requestId}/slots/${slotId}/correct`, t, {
            expectedSourceVersion: 1,
            expectedOrgVersion: 1,
            data: name('X'),
          }),
      ],
      ['files', (t) => api.get(`/org/v1/requests/${requestId}/files`, t)],
      ['attach', (t) => api.post(`/org/v1/requests/${requestId}/files?fileName=a.txt`, t)],
    ];
    const events = await eventCount();
    for (const [route, call] of routes) {
      expect(problem(await call(readToken)), `${route} lacking`).to.deep.equal({ status: 403, code: 'forbidden' });
      expect(problem(await call()), `${route} no token`).to.deep.equal({ status: 401, code: 'unauthenticated' });
      expect(problem(await call(ann.token)), `${route} user token`).to.deep.equal({ status: 401, code: 'unauthenticated' });
      expect(problem(await call(rivalToken)), `${route} foreign`).to.deep.equal({ status: 404, code: 'not_found' });
    }
    expect(await eventCount(), 'no refused call wrote anything').to.equal(events);
  });

  it("keep, drain, copies, download and correct write nothing on the person's side, and withdraw or suspend leave copies readable", async () => {
    const doc = await createDoc({ name: 'Name', schemaRef: `${BASE}/PersonFullName.json`, data: name('Mine') });
    const requestId = await connected({ 0: [doc] });
    const personal = async () =>
      (
        await service.db.query<{ stream_id: string; revision: number }>(
          `SELECT stream_id, max(revision)::int AS revision FROM es.events
           WHERE stream_id NOT LIKE 'chain-%' AND stream_id NOT LIKE 'request-%' AND stream_id NOT LIKE 'attachment-%'
             AND stream_id NOT LIKE 'org-%' AND stream_id NOT LIKE 'manifest-%'
           GROUP BY stream_id ORDER BY stream_id`,
        )
      ).rows;
    const before = await personal();
    expect((await keep(requestId)).status).to.equal(200);
    await api.post(`/org/v1/requests/${requestId}/adoptions/drain`, token);
    await copies(requestId);
    await correct(requestId, 0, { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('Ours') });
    expect(await personal(), "no event on any of the person's streams").to.deep.equal(before);

    const mutate = (verb: string, args: string, vars: Record<string, unknown>) =>
      gql(ann, `mutation($r: ID!${args ? `, ${args}` : ''}) { user { request { ${verb} { requestId } } } }`, { r: requestId, ...vars });
    ok(await mutate('withdraw(requestId: $r, slotId: $s)', '$s: ID!', { s: manifest.slots[0]!.slotId }));
    expect((await copies(requestId))[0]).to.deep.include({ data: name('Mine'), currentData: name('Ours') });
    ok(await mutate('suspend(requestId: $r)', '', {}));
    expect((await copies(requestId))[0]).to.deep.include({ data: name('Mine'), currentData: name('Ours') });
  });

  it('a retry after standing is regained keeps only what was skipped; what was kept is answered, not copied again', async () => {
    const entity = async (n: string) =>
      ok(await gql(ann, `mutation { user { entity { create(name: "${n}") { entityId } } } }`)).user.entity.create.entityId as string;
    const [alpha, beta] = [await entity('Alpha'), await entity('Beta')];
    const reg = async (owner: string, n: string) =>
      createDoc({ name: n, owner, schemaRef: `${BASE}/LegalEntityRegistration.json`, data: { registrationNumber: n, country: 'DE' } });
    const requestId = await connected({ 1: [await reg(alpha, 'HRB A'), await reg(beta, 'HRB B')] });
    const partner = await api.user();
    const setMember = async (u: User, email: string, role: string) =>
      ok(await gql(u, `mutation { user { entity { setMember(entityId: "${beta}", email: "${email}", role: ${role}) { entityId } } } }`));
    await setMember(ann, partner.email, 'MANAGER');
    ok(await gql(partner, `mutation { user { entity { removeMember(entityId: "${beta}", email: "${ann.email}") { entityId } } } }`));

    const first = await keep(requestId, 1);
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body.adoptions).to.have.length(1);
    expect(first.body.skipped).to.have.length(1);
    expect((first.body.skipped as Array<Record<string, unknown>>)[0]).to.include({ reason: 'participant_ineligible' });
    expect((first.body.skipped as Array<Record<string, unknown>>)[0]!.message).to.be.a('string');

    await setMember(partner, ann.email, 'MANAGER');
    const events = await eventCount();
    const retry = await keep(requestId, 1);
    expect(retry.body.adoptions).to.have.length(2);
    expect(retry.body.adoptions).to.deep.include((first.body.adoptions as Adoption[])[0]);
    expect(retry.body.skipped).to.deep.equal([]);
    expect(await eventCount(), 'one new keep').to.equal(events + 1);
  });

  it('a pending file copy answers download 403 adoption_refused once the key is warm, and 423 while it is cold', async () => {
    const files = fileClient(service.url);
    const fileId = (await files.upload(ann.token, { fileName: 'id.png' }, Buffer.from('png'))).json.fileId as string;
    const requestId = await connected({ 3: [fileId] });
    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);
    const [pending] = (await keep(requestId, 3)).body.adoptions as Adoption[];
    expect(pending!.state).to.equal('pending');
    const download = (as: string) => api.get(`/org/v1/requests/${requestId}/copies/${pending!.adoptionId}/download`, as);
    expect(problem(await download(token))).to.deep.equal({ status: 423, code: 'org_sealed' });
    // No copy workers run in this suite, so the keep stays pending after the sign-in.
    token = await api.signIn(owner.token, orgId);
    expect(problem(await download(token))).to.deep.equal({ status: 403, code: 'adoption_refused' });
    expect((await api.post(`/org/v1/requests/${requestId}/adoptions/drain`, token)).body).to.deep.equal({
      materialized: 1,
      stillPending: 0,
    });
    const bytes = await fetch(`${service.url}/org/v1/requests/${requestId}/copies/${pending!.adoptionId}/download`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(Buffer.from(await bytes.arrayBuffer()).toString()).to.equal('png');
  });
});
