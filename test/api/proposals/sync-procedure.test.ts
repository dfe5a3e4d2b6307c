import { expect } from 'chai';
import type { CopyWorkers } from '../../../src/workers/copy-workers.js';
import { openWorkerQueue, startWorkers } from '../../support/copy-workers.js';
import type { JobQueue } from '../../../src/workers/queue/queue.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, type OrgClient } from '../org/org-client.js';
import { driver, schemaRef, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';

type Participant = null | { alias: string };
type Record_ = { resourceId: string; participant: Participant; sourceVersion?: number; status: string };
type Detail = {
  items: Array<{ slotId: string; adoption: string; records: Record_[] }>;
  adoptions: Array<{ slotId: string; sourceResourceId: string; sourceVersion: number; state: string }>;
  proposals: Array<{ proposalId: string }>;
};
type Copy = { adoption: { slotId: string; sourceVersion: number }; participant: Participant; currentData?: unknown };

/**
 * The client of spec §4.3 "Sync procedure for a client", written against the HTTP API only: list
 * the recipient's requests; read each detail and compare each record's sourceVersion with its
 * newest adoption; keep new versions (reading skipped); read copies and take currentData of the
 * newest adoption per slot and per participant; decide what proposals are still open.
 */
async function sync(api: OrgClient, token: string, email: string): Promise<Map<string, unknown>> {
  const view = new Map<string, unknown>();
  const list = (await api.get(`/org/v1/requests?email=${encodeURIComponent(email)}`, token)).body.requests as Array<{ requestId: string }>;
  for (const { requestId } of list) {
    const detail = (await api.get(`/org/v1/requests/${requestId}`, token)).body as unknown as Detail;
    for (const item of detail.items) {
      const behind = item.records.some((r) => {
        const kept = detail.adoptions.filter((a) => a.slotId === item.slotId && a.sourceResourceId === r.resourceId);
        return r.status === 'available' && !kept.some((a) => a.sourceVersion === r.sourceVersion);
      });
      if (!behind) continue;
      const kept = await api.post(`/org/v1/requests/${requestId}/slots/${item.slotId}/adopt`, token);
      expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
      expect(kept.body.skipped).to.deep.equal([]);
    }
    const copies = (await api.get(`/org/v1/requests/${requestId}/copies`, token)).body.copies as Copy[];
    const newest = new Map<string, Copy>();
    for (const c of copies) {
      const key = `${c.adoption.slotId}/${c.participant?.alias ?? 'own'}`;
      if ((newest.get(key)?.adoption.sourceVersion ?? 0) < c.adoption.sourceVersion) newest.set(key, c);
    }
    for (const [key, c] of newest) view.set(key, c.currentData);
    // What is still open was not kept by the rounds above: the client has read it; it dismisses it.
    const open = (await api.get(`/org/v1/requests/${requestId}/proposals`, token)).body.proposals as Array<{ proposalId: string }>;
    for (const p of open) await api.post(`/org/v1/requests/${requestId}/proposals/${p.proposalId}/dismiss`, token);
  }
  return view;
}

describe(`the spec's sync procedure, as a client runs it over several rounds (spec 4.3; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let queue: JobQueue;
  let workers: CopyWorkers;
  let api: OrgClient;
  let token: string;
  const { manifest, entity, createDoc, updateDoc, connected, copies, correct, detail } = driver({ api: () => api, member: () => token });

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    queue = await openWorkerQueue(service);
    workers = await startWorkers(service, queue);
    api = orgClient(service.url, mailer);
  });
  after(async () => {
    await workers.stop();
    await queue.close();
    await service.close();
  });

  it("through person updates, organization corrections and a company slot with two participants, the client's view equals what both did", async () => {
    const owner = await api.user();
    const orgId = await api.organization(owner.token, 'Acme');
    token = await api.signIn(owner.token, orgId);
    const slot = { group: 'KYC', kind: 'schema', verbs: ['keep'], adoption: 'manual' };
    const { manifestId, slots } = await manifest([
      { ...slot, label: 'Name', target: 'PersonFullName', multiple: false },
      { ...slot, label: 'Companies', target: 'LegalEntityRegistration', subject: 'company', multiple: true },
    ]);
    const [nameSlot, companySlot] = slots.map((s) => s.slotId) as [string, string];

    const ann: User = await api.user();
    const update = (id: string, data: Record<string, unknown>) => updateDoc(ann, id, data);
    const person = (given: string) => ({ givenName: given, familyName: 'Example' });
    const company = (n: string) => ({ registrationNumber: n, country: 'DE' });
    const registration = (n: string, owner: string, data: Record<string, unknown>) =>
      createDoc(ann, { name: n, owner, schemaRef: schemaRef('LegalEntityRegistration'), data });

    const [alpha, beta] = [await entity(ann, 'Alpha'), await entity(ann, 'Beta')];
    const name = await createDoc(ann, { name: 'Name', schemaRef: schemaRef('PersonFullName'), data: person('Ann') });
    const regA = await registration('A', alpha, company('HRB A1'));
    const regB = await registration('B', beta, company('HRB B1'));
    const requestId = await connected(manifestId, ann, { [nameSlot]: [name], [companySlot]: [regA, regB] });
    const accepted = (await detail(requestId)) as unknown as Detail;
    const aliasOf = (resourceId: string) => accepted.items[1]!.records.find((r) => r.resourceId === resourceId)!.participant!.alias;
    const [a, b] = [aliasOf(regA), aliasOf(regB)];
    const expected = (n: unknown, ca: unknown, cb: unknown) =>
      new Map<string, unknown>([
        [`${nameSlot}/own`, n],
        [`${companySlot}/${a}`, ca],
        [`${companySlot}/${b}`, cb],
      ]);

    // Round 1: the first sync keeps everything.
    expect(await sync(api, token, ann.email)).to.deep.equal(expected(person('Ann'), company('HRB A1'), company('HRB B1')));

    // Round 2: the person renames herself; the organization corrects company A.
    await update(name, person('Anna'));
    const copyA = (await copies(requestId)).find((c) => c.adoption.sourceResourceId === regA)!;
    const fixed = await correct(requestId, companySlot, {
      sourceResourceId: regA,
      expectedSourceVersion: 1,
      expectedOrgVersion: copyA.currentOrgVersion,
      data: company('HRB A1 (checked)'),
    });
    expect(fixed.status, JSON.stringify(fixed.body)).to.equal(200);
    expect(await sync(api, token, ann.email)).to.deep.equal(expected(person('Anna'), company('HRB A1 (checked)'), company('HRB B1')));

    // Round 3: the person updates company B twice and company A once; the newest versions win.
    await update(regB, company('HRB B2'));
    await update(regB, company('HRB B3'));
    await update(regA, company('HRB A2'));
    expect(await sync(api, token, ann.email)).to.deep.equal(expected(person('Anna'), company('HRB A2'), company('HRB B3')));

    // Round 4: nothing changed: a sync changes nothing, and nothing is left open.
    expect(await sync(api, token, ann.email)).to.deep.equal(expected(person('Anna'), company('HRB A2'), company('HRB B3')));
    expect((await detail(requestId)).proposals).to.deep.equal([]);
  });
});
