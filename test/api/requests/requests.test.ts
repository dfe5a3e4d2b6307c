import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer, TestClock } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';
import { orgClient, problem, type OrgClient } from '../org/org-client.js';
import { driver, schemaRef, type Manifest, type User } from '../support/driver.js';
type Summary = {
  requestId: string;
  state: string;
  recipientEmail: string;
  manifestVersion: number;
  initiatedBy: string;
  initiatingClientId?: string;
  createdAt: string;
  invitationExpiresAt: string;
};
type RecordEntry = {
  resourceId: string;
  participant: null | { subjectId: string; type: string; alias: string };
  sourceVersion?: number;
  status: string;
  reason?: string;
};
type Item = { slotId: string; subject?: string; status: string; records: RecordEntry[] };
type Detail = { request: Summary; manifestName: string; items: Item[]; adoptions: unknown[]; proposals: unknown[] };

const DAY = 86_400_000;
const NOBODY = '00000000-0000-4000-8000-000000000000';
const nameSlot = {
  label: 'Full name',
  group: 'Identity',
  multiple: false,
  kind: 'schema',
  target: 'PersonFullName',
  verbs: ['fill', 'keep'],
  adoption: 'manual',
};
const companySlot = {
  label: 'Registration',
  group: 'Company',
  subject: 'company',
  multiple: false,
  kind: 'schema',
  target: 'LegalEntityRegistration',
  verbs: ['keep'],
  adoption: 'auto',
};
const REQUEST = `requestId organizationId organizationName manifestId manifestName manifestVersion state initiatedBy initiatingClientId
  invitationExpiresAt createdAt items { slotId label group subject multiple kind target verbs adoption status resourceIds }`;

describe(`requests and consent (spec 2.2-2.4, 3.1-3.3, 4.3; contract 4, 5, 8; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  const clock = new TestClock(Date.now());
  let service: TestService;
  let api: OrgClient;
  let acme: { id: string; token: string; owner: User };
  let rival: { id: string; token: string; owner: User };
  let kyc: Manifest;
  let rivalKyc: Manifest;
  let ann: User;
  let entityId: string;
  let annName: string;
  let annCompany: string;

  const d = driver({ api: () => api, member: () => acme.token, log: () => service.db });
  const { gql, ok, errorOf, createDoc, appended } = d;
  /** A request mutation of the person, answering the request's fields (REQUEST). */
  const mutate = (u: User, field: string, args: string, variables: Record<string, unknown>) =>
    gql(u, `mutation(${args}) { user { request { ${field} { ${REQUEST} } } } }`, variables);
  const accept = (u: User, requestId: string, grants: unknown[]) =>
    mutate(u, 'accept(requestId: $requestId, grants: $grants)', '$requestId: ID!, $grants: [GrantInput!]!', { requestId, grants });
  const grant = (u: User, requestId: string, g: unknown) =>
    mutate(u, 'grant(requestId: $requestId, grant: $grant)', '$requestId: ID!, $grant: GrantInput!', { requestId, grant: g });
  const change = (u: User, verb: string, requestId: string) =>
    mutate(u, `${verb}(requestId: $requestId)`, '$requestId: ID!', { requestId });
  const address = () => `r${randomBytes(4).toString('hex')}@example.com`;

  async function org(name: string) {
    const owner = await api.user();
    const id = await api.organization(owner.token, name);
    return { id, owner, token: await api.signIn(owner.token, id) };
  }
  async function send(token: string, manifestId: string, recipientEmail: string, extra: Record<string, unknown> = {}): Promise<Summary> {
    const r = await api.post('/org/v1/requests', token, { manifestId, recipientEmail, ...extra });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.request as Summary;
  }
  const detail = async (requestId: string, token = acme.token) => (await d.detail(requestId, { as: token })) as unknown as Detail;
  /** A request to ann, accepted with her own name and her company's registration. */
  const connected = (token = acme.token, manifest = kyc) =>
    d.connected(
      manifest.manifestId,
      ann,
      { [manifest.slots[0]!.slotId]: [annName], [manifest.slots[1]!.slotId]: [annCompany] },
      { as: token },
    );
  const records = (d: Detail) => d.items.flatMap((i) => i.records);

  before(async () => {
    service = await startTestService({ domain: { mailer, now: clock.now } });
    api = orgClient(service.url, mailer);
    acme = await org('Acme');
    rival = await org('Rival');
    kyc = await d.manifest([nameSlot, companySlot]);
    rivalKyc = await d.manifest([nameSlot, companySlot], 'P30D', { name: 'Due diligence', as: rival.token });
    ann = await api.user();
    entityId = await d.entity(ann, 'Ann GmbH');
    annName = await createDoc(ann, {
      name: 'Name',
      schemaRef: schemaRef('PersonFullName'),
      data: { givenName: 'Ann', familyName: 'Example' },
    });
    annCompany = await createDoc(ann, {
      name: 'Reg',
      owner: entityId,
      schemaRef: schemaRef('LegalEntityRegistration'),
      data: { registrationNumber: 'HRB 1', country: 'DE' },
    });
  });
  after(() => service.close());

  it('send: 201 pending, newest manifest version pinned, a 7-day window, an invitation mailed to the normalized address', async () => {
    const v2 = await api.post(`/org/v1/manifests/${kyc.manifestId}/versions`, acme.token, {
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [nameSlot, companySlot].map((s, i) => ({ ...s, slotId: kyc.slots[i]!.slotId })),
    });
    expect(v2.status).to.equal(201);
    const r = await send(acme.token, kyc.manifestId, `  ${ann.email.toUpperCase()} `);
    expect(r).to.deep.include({
      state: 'pending',
      recipientEmail: ann.email,
      manifestVersion: 2,
      initiatedBy: 'org',
      manifestId: kyc.manifestId,
      manifestName: 'KYC',
    });
    expect(r).to.not.have.property('initiatingClientId');
    expect(r.invitationExpiresAt).to.equal(new Date(clock.now().getTime() + 7 * DAY).toISOString());
    expect(mailer.sent.at(-1)!.to).to.equal(ann.email);
    expect(mailer.sent.at(-1)!.subject).to.match(/Acme/);
  });

  it("send refuses another organization's manifest (404), a missing recipient and a window past 90 days (400 invalid_request)", async () => {
    expect(
      problem(await api.post('/org/v1/requests', acme.token, { manifestId: rivalKyc.manifestId, recipientEmail: ann.email })),
    ).to.deep.equal({ status: 404, code: 'not_found' });
    expect(problem(await api.post('/org/v1/requests', acme.token, { manifestId: kyc.manifestId }))).to.deep.equal({
      status: 400,
      code: 'invalid_request',
    });
    expect(
      problem(
        await api.post('/org/v1/requests', acme.token, {
          manifestId: kyc.manifestId,
          recipientEmail: ann.email,
          invitationExpiresAt: new Date(clock.now().getTime() + 91 * DAY).toISOString(),
        }),
      ),
    ).to.deep.equal({ status: 400, code: 'invalid_request' });
  });

  it('list: newest first, filtered by the normalized email; the person sees it under requests', async () => {
    const bob = address();
    const first = await send(acme.token, kyc.manifestId, bob);
    clock.advance(1);
    const second = await send(acme.token, kyc.manifestId, bob);
    const third = await send(acme.token, kyc.manifestId, bob);
    const r = await api.get(`/org/v1/requests?email=${encodeURIComponent(bob.toUpperCase())}`, acme.token);
    expect(r.status).to.equal(200);
    expect((r.body.requests as Summary[]).map((x) => x.requestId)).to.deep.equal([third.requestId, second.requestId, first.requestId]);
    const all = (await api.get('/org/v1/requests', acme.token)).body.requests as Summary[];
    expect(all[0]!.requestId).to.equal(third.requestId);
    expect((await api.get('/org/v1/requests', rival.token)).body.requests).to.deep.equal([]);
    const mine = ok(await gql(ann, `{ user { requests { ${REQUEST} } } }`)).user.requests as Array<{
      recipientEmail?: string;
      organizationName: string;
    }>;
    expect(mine.length).to.be.greaterThan(0);
    expect(mine.every((x) => x.organizationName === 'Acme')).to.equal(true);
  });

  it('accept with grants: active, records available with sourceVersion; participant null for her own, alias for the entity', async () => {
    const requestId = await connected();
    const d = await detail(requestId);
    expect(d.request.state).to.equal('active');
    expect(d.manifestName).to.equal('KYC');
    expect(d.adoptions).to.deep.equal([]);
    expect(d.proposals).to.deep.equal([]);
    const [name, company] = d.items;
    expect(name).to.deep.include({
      status: 'granted',
      records: [{ resourceId: annName, participant: null, sourceVersion: 1, status: 'available' }],
    });
    expect(name).to.not.have.property('subject');
    expect(company!.subject).to.equal('company');
    const rec = company!.records[0]!;
    expect(rec).to.deep.include({ resourceId: annCompany, sourceVersion: 1, status: 'available' });
    expect(rec.participant).to.deep.include({ subjectId: 'company', type: 'legal_entity' });
    expect(rec.participant!.alias).to.be.a('string').and.not.include(entityId);
    const person = ok(await gql(ann, `{ user { requests { ${REQUEST} } } }`)).user.requests.find(
      (x: { requestId: string }) => x.requestId === requestId,
    );
    expect(person.items.map((i: { resourceIds: string[] }) => i.resourceIds)).to.deep.equal([[annName], [annCompany]]);
  });

  it('a second accept of an accepted request is a CONFLICT', async () => {
    const requestId = await connected();
    expect(errorOf(await accept(ann, requestId, [])).extensions.code).to.equal('CONFLICT');
  });

  it('aliases: the same across two requests of one organization, different between organizations, never the entity id', async () => {
    const alias = async (requestId: string, token: string) =>
      records(await detail(requestId, token)).find((r) => r.participant)!.participant!.alias;
    const a1 = await alias(await connected(), acme.token);
    const a2 = await alias(await connected(), acme.token);
    const b = await alias(await connected(rival.token, rivalKyc), rival.token);
    expect(a1).to.equal(a2);
    expect(b).to.not.equal(a1);
    expect([a1, b]).to.not.include(entityId);
  });

  it('time: a pending invitation reads expired after its window; accepting it is a CONFLICT', async () => {
    const { requestId } = await send(acme.token, kyc.manifestId, ann.email, {
      invitationExpiresAt: new Date(clock.now().getTime() + 1000).toISOString(),
    });
    clock.advance(1000);
    expect((await detail(requestId)).request.state).to.equal('expired');
    expect(errorOf(await accept(ann, requestId, [])).extensions.code).to.equal('CONFLICT');
  });

  it('cancel: pending becomes rejected_by_sender; then 409; another organization 404', async () => {
    const { requestId } = await send(acme.token, kyc.manifestId, ann.email);
    expect(problem(await api.post(`/org/v1/requests/${requestId}/cancel`, rival.token))).to.deep.equal({ status: 404, code: 'not_found' });
    const r = await api.post(`/org/v1/requests/${requestId}/cancel`, acme.token);
    expect(r.status).to.equal(200);
    expect((r.body.request as Summary).state).to.equal('rejected_by_sender');
    expect(problem(await api.post(`/org/v1/requests/${requestId}/cancel`, acme.token))).to.deep.equal({ status: 409, code: 'conflict' });
    expect(errorOf(await accept(ann, requestId, [])).extensions.code).to.equal('CONFLICT');
  });

  it("ids that are no UUID name nothing on the person's side: a request, a grant's slot and resource, a withdrawn slot are NOT_FOUND; nothing is written", async () => {
    const { requestId } = await send(acme.token, kyc.manifestId, ann.email);
    const slot = kyc.slots[0]!.slotId;
    const since = await d.mark();
    expect(errorOf(await change(ann, 'revoke', 'not-a-uuid')).extensions.code).to.equal('NOT_FOUND');
    expect(errorOf(await accept(ann, 'not-a-uuid', [])).extensions.code).to.equal('NOT_FOUND');
    expect(errorOf(await accept(ann, requestId, [{ slotId: 'not-a-uuid', resourceIds: [annName] }])).message).to.match(
      /no slot not-a-uuid/,
    );
    expect(errorOf(await accept(ann, requestId, [{ slotId: slot, resourceIds: ['not-a-uuid'] }])).message).to.match(
      /no resource not-a-uuid/,
    );
    const withdraw = await mutate(ann, 'withdraw(requestId: $r, slotId: $s)', '$r: ID!, $s: ID!', { r: requestId, s: 'not-a-uuid' });
    expect(errorOf(withdraw).extensions.code).to.equal('NOT_FOUND');
    expect(await d.appendedSince(since)).to.deep.equal([]);
  });

  it("reject: pending becomes rejected_by_recipient; someone else's request is NOT_FOUND", async () => {
    const { requestId } = await send(acme.token, kyc.manifestId, ann.email);
    const other = await api.user();
    expect(errorOf(await change(other, 'reject', requestId)).extensions.code).to.equal('NOT_FOUND');
    expect(ok(await change(ann, 'reject', requestId)).user.request.reject.state).to.equal('rejected_by_recipient');
    expect((await detail(requestId)).request.state).to.equal('rejected_by_recipient');
  });

  it('suspend reads connection_inactive, resume available again; revoke stays revoked; grants rows remain', async () => {
    const requestId = await connected();
    expect(ok(await change(ann, 'suspend', requestId)).user.request.suspend.state).to.equal('suspended');
    expect(records(await detail(requestId)).map((r) => r.reason)).to.deep.equal(['connection_inactive', 'connection_inactive']);
    expect(ok(await change(ann, 'resume', requestId)).user.request.resume.state).to.equal('active');
    expect(records(await detail(requestId)).map((r) => r.status)).to.deep.equal(['available', 'available']);
    expect(ok(await change(ann, 'revoke', requestId)).user.request.revoke.state).to.equal('revoked');
    const d = await detail(requestId);
    expect(d.request.state).to.equal('revoked');
    expect(records(d).map((r) => r.reason)).to.deep.equal(['connection_inactive', 'connection_inactive']);
    expect(errorOf(await change(ann, 'resume', requestId)).extensions.code).to.equal('CONFLICT');
    const rows = await service.db.query('SELECT 1 FROM rm.request_grants WHERE request_id = $1', [requestId]);
    expect(rows.rowCount).to.equal(2);
  });

  it('a deleted document reads source_unavailable; losing MANAGER reads participant_ineligible, regaining it available', async () => {
    const mine = await createDoc(ann, {
      name: 'Name 2',
      schemaRef: schemaRef('PersonFullName'),
      data: { givenName: 'A', familyName: 'E' },
    });
    const { requestId } = await send(acme.token, kyc.manifestId, ann.email);
    ok(
      await accept(ann, requestId, [
        { slotId: kyc.slots[0]!.slotId, resourceIds: [mine] },
        { slotId: kyc.slots[1]!.slotId, resourceIds: [annCompany] },
      ]),
    );
    await d.deleteDoc(ann, mine);
    expect(records(await detail(requestId))[0]).to.deep.equal({
      resourceId: mine,
      participant: null,
      status: 'unavailable',
      reason: 'source_unavailable',
    });

    const partner = await api.user();
    const setMember = (u: User, email: string, role: string) =>
      gql(
        u,
        'mutation($e: ID!, $m: String!, $r: EntityRole!) { user { entity { setMember(entityId: $e, email: $m, role: $r) { entityId } } } }',
        { e: entityId, m: email, r: role },
      );
    ok(await setMember(ann, partner.email, 'MANAGER'));
    ok(await setMember(partner, ann.email, 'MEMBER'));
    const demoted = records(await detail(requestId))[1]!;
    expect(demoted).to.deep.include({ resourceId: annCompany, status: 'unavailable', reason: 'participant_ineligible' });
    expect(demoted).to.not.have.property('sourceVersion');
    ok(await setMember(partner, ann.email, 'MANAGER'));
    expect(records(await detail(requestId))[1]).to.deep.include({ status: 'available', sourceVersion: 1 });
    const rows = await service.db.query('SELECT 1 FROM rm.request_grants WHERE request_id = $1', [requestId]);
    expect(rows.rowCount).to.equal(2);
  });

  it('withdraw: the slot reads pending with no records; the grant row stays; grant adds it back', async () => {
    const requestId = await connected();
    const slotId = kyc.slots[0]!.slotId;
    const r = ok(
      await mutate(ann, 'withdraw(requestId: $requestId, slotId: $slotId)', '$requestId: ID!, $slotId: ID!', { requestId, slotId }),
    ).user.request.withdraw;
    expect(r.items[0]).to.deep.include({ status: 'pending', resourceIds: [] });
    expect((await detail(requestId)).items[0]).to.deep.include({ status: 'pending', records: [] });
    expect(
      (await service.db.query('SELECT 1 FROM rm.request_grants WHERE request_id = $1 AND slot_id = $2', [requestId, slotId])).rowCount,
    ).to.equal(1);
    ok(await grant(ann, requestId, { slotId, resourceIds: [annName] }));
    expect((await detail(requestId)).items[0]!.records.map((x) => x.status)).to.deep.equal(['available']);
  });

  it("grant refusals: another vault's resource, a schema not matching the target, a second resource on a non-multiple slot", async () => {
    const requestId = await connected();
    const bob = await api.user();
    const bobs = await createDoc(bob, {
      name: 'Name',
      schemaRef: schemaRef('PersonFullName'),
      data: { givenName: 'Bob', familyName: 'B' },
    });
    const nameSlotId = kyc.slots[0]!.slotId;
    const foreign = errorOf(await grant(ann, requestId, { slotId: nameSlotId, resourceIds: [bobs] }));
    expect(foreign.extensions.code).to.equal('NOT_FOUND');
    expect(foreign.message).to.match(/no resource/);
    const contact = await createDoc(ann, { name: 'Contact', schemaRef: schemaRef('PersonContact'), data: { email: 'ann@example.com' } });
    const wrong = errorOf(await grant(ann, requestId, { slotId: nameSlotId, resourceIds: [contact] }));
    expect(wrong.extensions.code).to.equal('BAD_USER_INPUT');
    expect(wrong.message)
      .to.match(/PersonFullName/)
      .and.match(/PersonContact/);
    const another = await createDoc(ann, {
      name: 'Name 3',
      schemaRef: schemaRef('PersonFullName'),
      data: { givenName: 'A', familyName: 'X' },
    });
    const second = errorOf(await grant(ann, requestId, { slotId: nameSlotId, resourceIds: [another] }));
    expect(second.extensions.code).to.equal('BAD_USER_INPUT');
    expect(second.message).to.match(/one resource per party/);
    expect(errorOf(await grant(ann, requestId, { slotId: NOBODY, resourceIds: [annName] })).extensions.code).to.equal('NOT_FOUND');
    expect(errorOf(await grant(ann, requestId, { slotId: kyc.slots[1]!.slotId, resourceIds: [annName] })).extensions.code).to.equal(
      'BAD_USER_INPUT',
    );
  });

  it("open: recipient-initiated through an app of the manifest's organization; accept is a separate step", async () => {
    const app = await api.post('/org/v1/apps', acme.token, { name: 'Portal' });
    expect(app.status).to.equal(201);
    const clientId = app.body.clientId as string;
    const open = (c: string, m: string) => mutate(ann, 'open(clientId: $c, manifestId: $m)', '$c: ID!, $m: ID!', { c, m });
    const r = ok(await open(clientId, kyc.manifestId)).user.request.open;
    expect(r).to.deep.include({ state: 'pending', initiatedBy: 'recipient', initiatingClientId: clientId, organizationName: 'Acme' });
    expect((await detail(r.requestId)).request).to.deep.include({ recipientEmail: ann.email, initiatingClientId: clientId });
    expect(errorOf(await open(clientId, rivalKyc.manifestId)).extensions.code).to.equal('NOT_FOUND');
  });

  it('the list and the detail append nothing to the log', async () => {
    const requestId = await connected();
    const reads = async () => {
      await api.get('/org/v1/requests', acme.token);
      await api.get(`/org/v1/requests?email=${encodeURIComponent(ann.email)}`, acme.token);
      await detail(requestId);
    };
    expect(await appended(reads)).to.deep.equal([]);
  });

  it('matrix: every request route × lacking permission 403, another organization 404, no token 401, a user token 401', async () => {
    const { requestId } = await send(acme.token, kyc.manifestId, ann.email);
    const rivalRequest = await send(rival.token, rivalKyc.manifestId, ann.email);
    const readOnly = await api.user();
    const manageOnly = await api.user();
    expect((await api.put(`/org/v1/members/${readOnly.email}`, acme.token, { permissions: ['request_read'] })).status).to.equal(200);
    expect((await api.put(`/org/v1/members/${manageOnly.email}`, acme.token, { permissions: ['request_manage'] })).status).to.equal(200);
    const readToken = await api.signIn(readOnly.token, acme.id);
    const manageToken = await api.signIn(manageOnly.token, acme.id);
    const routes = [
      { name: 'list', needs: 'request_read', call: (t?: string) => api.get('/org/v1/requests', t), foreign: null },
      {
        name: 'detail',
        needs: 'request_read',
        call: (t?: string, id = requestId) => api.get(`/org/v1/requests/${id}`, t),
        foreign: rivalRequest.requestId,
      },
      {
        name: 'send',
        needs: 'request_manage',
        call: (t?: string, m = kyc.manifestId) => api.post('/org/v1/requests', t, { manifestId: m, recipientEmail: ann.email }),
        foreign: rivalKyc.manifestId,
      },
      {
        name: 'cancel',
        needs: 'request_manage',
        call: (t?: string, id = requestId) => api.post(`/org/v1/requests/${id}/cancel`, t),
        foreign: rivalRequest.requestId,
      },
    ];
    for (const route of routes) {
      const lacking = route.needs === 'request_read' ? manageToken : readToken;
      expect(problem(await route.call(lacking)), `${route.name} lacking`).to.deep.equal({ status: 403, code: 'forbidden' });
      expect(problem(await route.call()), `${route.name} no token`).to.deep.equal({ status: 401, code: 'unauthenticated' });
      expect(problem(await route.call(ann.token)), `${route.name} user token`).to.deep.equal({ status: 401, code: 'unauthenticated' });
      if (route.foreign)
        expect(problem(await route.call(acme.token, route.foreign)), `${route.name} foreign`).to.deep.equal({
          status: 404,
          code: 'not_found',
        });
      else expect((await route.call(rival.token)).body.requests, 'list foreign').to.not.deep.include({ requestId });
      // And the other organization's own token on this organization's ids.
      if (route.foreign)
        expect(problem(await route.call(rival.token)), `${route.name} rival on acme`).to.deep.equal({ status: 404, code: 'not_found' });
    }
    expect(problem(await api.get('/org/v1/requests/not-a-uuid', acme.token))).to.deep.equal({ status: 404, code: 'not_found' });
  });

  // Last: moving the clock a month on outlives every token the other tests use.
  it('time: an active connection reads expired past retention, its records connection_inactive, nothing removed', async () => {
    const requestId = await connected();
    clock.advance(30 * DAY);
    const owner = await api.user({ email: acme.owner.email, register: false });
    const d = await detail(requestId, await api.signIn(owner.token, acme.id));
    expect(d.request.state).to.equal('expired');
    expect(records(d).map((r) => [r.status, r.reason, r.sourceVersion])).to.deep.equal([
      ['unavailable', 'connection_inactive', undefined],
      ['unavailable', 'connection_inactive', undefined],
    ]);
    expect(d.items.map((i) => i.status)).to.deep.equal(['granted', 'granted']);
  });
});
