import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer, TestClock } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';
import { claimsOf, orgClient, problem, type OrgClient } from './org-client.js';

type Slot = {
  slotId: string;
  label: string;
  subject?: string;
  kind: string;
  target: string;
  verbs: string[];
  adoption: string;
  required: boolean;
};
type Manifest = {
  manifestId: string;
  name: string;
  purpose: string;
  version: number;
  retention: string;
  slots: Slot[];
  publishedAt: string;
};

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
  label: 'Register extract',
  group: 'Company',
  subject: 'company',
  multiple: true,
  kind: 'file',
  target: 'RegisterExtract',
  verbs: ['keep', 'edit'],
  adoption: 'auto',
};

describe(`manifests (contract 3; ${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  const clock = new TestClock(Date.now());
  let service: TestService;
  let api: OrgClient;
  let token: string;
  let otherOrgToken: string;
  let kyc: Manifest;

  before(async () => {
    service = await startTestService({ domain: { mailer, now: clock.now } });
    api = orgClient(service.url, mailer);
    const owner = await api.user();
    token = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    const other = await api.user();
    otherOrgToken = await api.signIn(other.token, await api.organization(other.token, 'Rival'));
    const r = await api.post('/org/v1/manifests', token, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P365D',
      slots: [nameSlot, companySlot],
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    kyc = r.body.manifest as Manifest;
  });
  after(() => service.close());

  const manifestOf = (r: { body: Record<string, unknown> }) => r.body.manifest as Manifest;

  it('POST /manifests: 201 version 1, slots with fresh slotIds, subject only where given', () => {
    expect(kyc).to.deep.include({ name: 'KYC', version: 1, retention: 'P365D', publishedAt: clock.now().toISOString() });
    expect(kyc.manifestId).to.match(/^[0-9a-f-]{36}$/);
    const [name, company] = kyc.slots;
    expect(name!.slotId).to.match(/^[0-9a-f-]{36}$/);
    expect(company!.slotId)
      .to.match(/^[0-9a-f-]{36}$/)
      .and.not.equal(name!.slotId);
    expect(name).to.deep.equal({ slotId: name!.slotId, ...nameSlot, required: false });
    expect(company).to.deep.equal({ slotId: company!.slotId, ...companySlot, verbs: ['edit', 'keep'], required: false });
  });

  it('POST /manifests/{id}/versions: 201 version + 1; a slotId carries a slot over, a new slot gets a fresh id; the old version stays', async () => {
    const m = (
      await api.post('/org/v1/manifests', token, {
        name: 'Onboarding',
        purpose: 'To check who you are',
        retention: 'P30D',
        slots: [nameSlot],
      })
    ).body.manifest as Manifest;
    clock.advance(1000);
    const carried = { ...nameSlot, slotId: m.slots[0]!.slotId, label: 'Legal name', required: false };
    const r = await api.post(`/org/v1/manifests/${m.manifestId}/versions`, token, {
      purpose: 'To check who you are',
      retention: 'PT2S',
      slots: [carried, companySlot],
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    const v2 = manifestOf(r);
    expect(v2).to.deep.include({
      manifestId: m.manifestId,
      name: 'Onboarding',
      version: 2,
      retention: 'PT2S',
      publishedAt: clock.now().toISOString(),
    });
    expect(v2.slots[0]).to.deep.equal(carried);
    expect(v2.slots[1]!.slotId).to.not.equal(m.slots[0]!.slotId);

    expect(manifestOf(await api.get(`/org/v1/manifests/${m.manifestId}`, token))).to.deep.equal(v2);
    expect(manifestOf(await api.get(`/org/v1/manifests/${m.manifestId}?version=1`, token))).to.deep.equal(m);
    expect(manifestOf(await api.get(`/org/v1/manifests/${m.manifestId}?version=2`, token))).to.deep.equal(v2);
    const list = (await api.get('/org/v1/manifests', token)).body.manifests as Manifest[];
    expect(list.find((x) => x.manifestId === m.manifestId)).to.deep.equal(v2);
    expect(list.find((x) => x.manifestId === kyc.manifestId)).to.deep.equal(kyc);

    const unknownSlot = await api.post(`/org/v1/manifests/${m.manifestId}/versions`, token, {
      purpose: 'To check who you are',
      retention: 'P1D',
      slots: [{ ...nameSlot, slotId: NOBODY }],
    });
    expect(problem(unknownSlot)).to.deep.equal({ status: 400, code: 'invalid_request' });
    expect(unknownSlot.body.detail).to.match(/^slots\[0\]\.slotId/);
  });

  it('GET /manifests/{id}: an unknown version or id and a malformed id are 404; a malformed version 400', async () => {
    for (const path of [`/org/v1/manifests/${kyc.manifestId}?version=2`, `/org/v1/manifests/${NOBODY}`, '/org/v1/manifests/not-an-id']) {
      expect(problem(await api.get(path, token)), path).to.deep.equal({ status: 404, code: 'not_found' });
    }
    for (const v of ['0', 'abc', '1.5', '-1']) {
      expect(problem(await api.get(`/org/v1/manifests/${kyc.manifestId}?version=${v}`, token)), v).to.deep.equal({
        status: 400,
        code: 'invalid_request',
      });
    }
  });

  it('every invalid input is 400 invalid_request naming the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ retention: 'P1D', slots: [nameSlot] }, /^name/],
      [{ name: 'x', retention: 'P1D', slots: [nameSlot] }, /^purpose is required/],
      [{ name: 'x', purpose: ' ', retention: 'P1D', slots: [nameSlot] }, /^purpose must not be blank/],
      [{ name: 'x', purpose: 'a'.repeat(2001), retention: 'P1D', slots: [nameSlot] }, /^purpose is longer than 2000/],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [{ ...nameSlot, required: 'yes' }] }, /^slots\[0\]\.required/],
      [{ name: 'x', purpose: 'p', slots: [nameSlot] }, /^retention/],
      [{ name: 'x', purpose: 'p', retention: 'PT0S', slots: [nameSlot] }, /^retention .*PT1S/],
      [{ name: 'x', purpose: 'p', retention: 'PT0.5S', slots: [nameSlot] }, /^retention/],
      [{ name: 'x', purpose: 'p', retention: '365 days', slots: [nameSlot] }, /^retention/],
      [{ name: 'x', purpose: 'p', retention: 'P1D' }, /^slots/],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [] }, /^slots/],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [nameSlot, 'slot'] }, /^slots\[1\]/],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [{ ...nameSlot, label: '' }] }, /^slots\[0\]\.label/],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [{ ...nameSlot, group: undefined }] }, /^slots\[0\]\.group/],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [{ ...nameSlot, subject: 3 }] }, /^slots\[0\]\.subject/],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [{ ...nameSlot, multiple: 'no' }] }, /^slots\[0\]\.multiple/],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [{ ...nameSlot, kind: 'video' }] }, /^slots\[0\]\.kind/],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [{ ...nameSlot, target: 'Passport' }] }, /^slots\[0\]\.target/],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [{ ...nameSlot, verbs: [] }] }, /^slots\[0\]\.verbs/],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [{ ...nameSlot, verbs: ['keep', 'share'] }] }, /^slots\[0\]\.verbs\[1\]/],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [{ ...nameSlot, adoption: 'sometimes' }] }, /^slots\[0\]\.adoption/],
      [
        { name: 'x', purpose: 'p', retention: 'P1D', slots: [{ ...nameSlot, adoption: 'auto', verbs: ['fill'] }] },
        /^slots\[0\]\.adoption auto needs the keep verb/,
      ],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [{ ...nameSlot, slotId: 'not-an-id' }] }, /^slots\[0\]\.slotId/],
      [{ name: 'x', purpose: 'p', retention: 'P1D', slots: [{ ...nameSlot, slotId: NOBODY }] }, /^slots\[0\]\.slotId/],
    ];
    for (const [body, field] of cases) {
      const r = await api.post('/org/v1/manifests', token, body);
      expect(problem(r), JSON.stringify(body)).to.deep.equal({ status: 400, code: 'invalid_request' });
      expect(r.body.detail, JSON.stringify(body)).to.match(field);
    }
    const list = (await api.get('/org/v1/manifests', token)).body.manifests as Manifest[];
    expect(list.map((m) => m.name)).to.not.include('x');
  });

  it("another organization's token: its manifests are not found and not listed (404, as unknown ids)", async () => {
    expect(problem(await api.get(`/org/v1/manifests/${kyc.manifestId}`, otherOrgToken))).to.deep.equal({ status: 404, code: 'not_found' });
    expect(problem(await api.get(`/org/v1/manifests/${kyc.manifestId}?version=1`, otherOrgToken))).to.deep.equal({
      status: 404,
      code: 'not_found',
    });
    const publish = await api.post(`/org/v1/manifests/${kyc.manifestId}/versions`, otherOrgToken, {
      purpose: 'To check who you are',
      retention: 'P1D',
      slots: [nameSlot],
    });
    expect(problem(publish)).to.deep.equal({ status: 404, code: 'not_found' });
    expect((await api.get('/org/v1/manifests', otherOrgToken)).body).to.deep.equal({ manifests: [] });
    expect(manifestOf(await api.get(`/org/v1/manifests/${kyc.manifestId}`, token)).version).to.equal(1);
  });

  it('an unknown manifest answers 404 before its body is judged (contract 8)', async () => {
    expect(
      problem(await api.post(`/org/v1/manifests/${NOBODY}/versions`, token, { purpose: 'To check who you are', retention: 'nope' })),
    ).to.deep.equal({
      status: 404,
      code: 'not_found',
    });
    expect(problem(await api.post('/org/v1/manifests/not-an-id/versions', token, {}))).to.deep.equal({ status: 404, code: 'not_found' });
  });

  it('publishing needs manifest_manage, reading request_read', async () => {
    const organizationId = claimsOf(token).org as string;
    const reader = await api.user();
    const writer = await api.user();
    await api.put(`/org/v1/members/${reader.email}`, token, { permissions: ['request_read'] });
    await api.put(`/org/v1/members/${writer.email}`, token, { permissions: ['manifest_manage'] });
    const readerToken = await api.signIn(reader.token, organizationId);
    const writerToken = await api.signIn(writer.token, organizationId);
    const body = { name: 'y', purpose: 'p', retention: 'P1D', slots: [nameSlot] };
    expect(problem(await api.post('/org/v1/manifests', readerToken, body))).to.deep.equal({ status: 403, code: 'forbidden' });
    expect(problem(await api.post(`/org/v1/manifests/${kyc.manifestId}/versions`, readerToken, body))).to.deep.equal({
      status: 403,
      code: 'forbidden',
    });
    expect((await api.get('/org/v1/manifests', readerToken)).status).to.equal(200);
    expect(problem(await api.get('/org/v1/manifests', writerToken))).to.deep.equal({ status: 403, code: 'forbidden' });
    expect(problem(await api.get(`/org/v1/manifests/${kyc.manifestId}`, writerToken))).to.deep.equal({ status: 403, code: 'forbidden' });
    expect((await api.post('/org/v1/manifests', writerToken, body)).status).to.equal(201);
  });
  describe('§11 purpose and required slots', () => {
    it('POST /manifests: the purpose is stored and returned by every read; a slot is optional unless required', async () => {
      const purpose = 'To open your account:\nwe must know who you are.';
      const r = await api.post('/org/v1/manifests', token, {
        name: 'Account',
        purpose,
        retention: 'P30D',
        slots: [{ ...nameSlot, required: true }, companySlot],
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      const m = manifestOf(r);
      expect(m.purpose).to.equal(purpose);
      expect(m.slots.map((s) => s.required)).to.deep.equal([true, false]);
      expect(manifestOf(await api.get(`/org/v1/manifests/${m.manifestId}`, token))).to.deep.equal(m);
      const list = (await api.get('/org/v1/manifests', token)).body.manifests as Manifest[];
      expect(list.find((x) => x.manifestId === m.manifestId)).to.deep.equal(m);
    });

    it('POST /manifests/{id}/versions: a new version needs its own purpose; the old version keeps its own', async () => {
      const m = manifestOf(
        await api.post('/org/v1/manifests', token, { name: 'Lease', purpose: 'Renting', retention: 'P30D', slots: [nameSlot] }),
      );
      const missing = await api.post(`/org/v1/manifests/${m.manifestId}/versions`, token, { retention: 'P30D', slots: [nameSlot] });
      expect(problem(missing)).to.deep.equal({ status: 400, code: 'invalid_request' });
      expect(missing.body.detail).to.match(/^purpose is required/);
      const v2 = await api.post(`/org/v1/manifests/${m.manifestId}/versions`, token, {
        purpose: 'Renting, and insuring',
        retention: 'P30D',
        slots: [{ ...nameSlot, slotId: m.slots[0]!.slotId, required: true }],
      });
      expect(manifestOf(v2)).to.deep.include({ version: 2, purpose: 'Renting, and insuring' });
      expect(manifestOf(v2).slots[0]!.required).to.equal(true);
      expect(manifestOf(await api.get(`/org/v1/manifests/${m.manifestId}?version=1`, token)).purpose).to.equal('Renting');
    });
  });
});
