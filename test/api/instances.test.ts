import { expect } from 'chai';
import { generateMasterKey, generatePrivateJwk, serializeJwkSet } from '../../src/identity/keys/index.js';
import type { CopyWorkers } from '../../src/workers/copy-workers.js';
import type { JobQueue } from '../../src/workers/queue/queue.js';
import { openWorkerQueue, startWorkers } from '../support/copy-workers.js';
import { mainBackend, openSecondConnection, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { RecordingMailer } from '../support/recording-mailer.js';
import { orgClient, type OrgClient } from './org/org-client.js';
import { consentScenario, MANUAL_NAME_SLOT, type User } from './support/consent-scenario.js';
import { startTestService, type TestService } from './support/service.js';

const name = (givenName: string) => ({ givenName, familyName: 'Example' });

describe(`three service instances on one database: one adoption per kept version, one winner per correct and adopt, shared limits (issue 16, R-REL-03; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let t: TestDatabase;
  const services: TestService[] = [];
  let apis: OrgClient[];
  let queue: JobQueue;
  let workers: CopyWorkers;
  let token: string;
  let ann: User;
  let calls: ReturnType<typeof consentScenario>;
  let manifest: { manifestId: string; slots: Array<{ slotId: string }> };

  before(async () => {
    t = await openTestDatabase();
    const env = {
      JWT_PRIVATE_KEY: serializeJwkSet([await generatePrivateJwk()]),
      MASTER_KEY: generateMasterKey().toString('base64'),
      INVITES_PER_ORG_PER_DAY: '4',
    };
    for (let i = 0; i < 3; i++) {
      // On PostgreSQL each instance has connections of its own, as another process would.
      const database: TestDatabase = i === 0 || !t.url ? t : { db: openSecondConnection(t), url: t.url, drop: async () => undefined };
      services.push(await startTestService({ database, domain: { mailer, env } }));
    }
    queue = await openWorkerQueue(services[0]!);
    workers = await startWorkers(services[0]!, queue);
    apis = services.map((s) => orgClient(s.url, mailer));
    const owner = await apis[0]!.user();
    token = await apis[1]!.signIn(owner.token, await apis[0]!.organization(owner.token, 'Acme'));
    calls = consentScenario(apis[2]!, () => token);
    const slot = MANUAL_NAME_SLOT;
    manifest = (
      await apis[0]!.post('/org/v1/manifests', token, { name: 'KYC', purpose: 'To check who you are', retention: 'P30D', slots: [slot] })
    ).body.manifest as typeof manifest;
    ann = await apis[1]!.user();
  });
  after(async () => {
    await workers.stop();
    await queue.close();
    for (const s of services.slice().reverse()) await s.close();
    if (t.url) for (const s of services.slice(1)) await s.t.db.close();
    await t.drop();
  });

  /** The same call through every instance at once. */
  const everywhere = (call: (api: OrgClient) => Promise<{ status: number; body: Record<string, unknown> }>) => Promise.all(apis.map(call));
  const count = async (type: string, requestId: string) =>
    (
      await services[0]!.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM es.events WHERE type = $1 AND data->>'requestId' = $2`, [
        type,
        requestId,
      ])
    ).rows[0]!.n;

  it('a keep sent to three instances at once keeps the version once, and all three answer the same adoption', async () => {
    const doc = await calls.createDoc(ann, 'PersonFullName', name('Ann'));
    const slotId = manifest.slots[0]!.slotId;
    const requestId = await calls.connected(manifest.manifestId, ann, { [slotId]: [doc] });
    const answers = await everywhere((api) => api.post(`/org/v1/requests/${requestId}/slots/${slotId}/adopt`, token));
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200]);
    const ids = answers.map((a) => (a.body.adoptions as Array<{ adoptionId: string }>)[0]!.adoptionId);
    expect(new Set(ids).size).to.equal(1);
    expect(await count('CopyKept', requestId)).to.equal(1);
  });

  it('a correct sent to three instances at once has one winner; the others answer 409 version_conflict', async () => {
    const doc = await calls.createDoc(ann, 'PersonFullName', name('Bo'));
    const slotId = manifest.slots[0]!.slotId;
    const requestId = await calls.connected(manifest.manifestId, ann, { [slotId]: [doc] });
    await calls.keep(requestId, slotId);
    const answers = await everywhere((api) =>
      api.post(`/org/v1/requests/${requestId}/slots/${slotId}/correct`, token, {
        expectedSourceVersion: 1,
        expectedOrgVersion: 1,
        data: name('Bob'),
      }),
    );
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 409, 409]);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.code === 'version_conflict')).to.equal(true);
    expect(await count('CopyCorrected', requestId)).to.equal(1);
  });

  it('a proposal adopted through three instances at once is adopted once; the others answer 409 conflict', async () => {
    const doc = await calls.createDoc(ann, 'PersonFullName', name('Cy'));
    const slotId = manifest.slots[0]!.slotId;
    const requestId = await calls.connected(manifest.manifestId, ann, { [slotId]: [doc] });
    await calls.updateDoc(ann, doc, name('Cy 2'));
    let open: Array<{ proposalId: string }> = [];
    for (let i = 0; i < 200 && open.length === 0; i++) {
      open = (await apis[0]!.get(`/org/v1/requests/${requestId}/proposals`, token)).body.proposals as typeof open;
      if (open.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    const answers = await everywhere((api) => api.post(`/org/v1/requests/${requestId}/proposals/${open[0]!.proposalId}/adopt`, token));
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 409, 409]);
    expect(await count('CopyKept', requestId)).to.equal(1);
    const closed = await services[0]!.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM es.events WHERE type = 'ProposalClosed' AND data->>'requestId' = $1 AND data->>'reason' = 'adopted'`,
      [requestId],
    );
    expect(closed.rows[0]!.n).to.equal(1);
  });

  it('the invitation limit holds across instances: of eight sends spread over three instances, the allowance left lets exactly that many through', async () => {
    const before = await services[0]!.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM es.events WHERE type = 'RequestSent'`);
    const left = 4 - before.rows[0]!.n;
    const sends = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        apis[i % 3]!.post('/org/v1/requests', token, { manifestId: manifest.manifestId, recipientEmail: `limit${i}@example.com` }),
      ),
    );
    expect(sends.filter((s) => s.status === 201)).to.have.length(Math.max(0, left));
    expect(sends.filter((s) => s.status === 429)).to.have.length(8 - Math.max(0, left));
  });
});
