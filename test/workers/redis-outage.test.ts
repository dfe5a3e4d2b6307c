import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { CopyWorkers } from '../../src/workers/copy-workers.js';
import { startWorkers } from '../support/copy-workers.js';
import { openJobQueue } from '../../src/workers/queue/open-queue.js';
import type { JobQueue } from '../../src/workers/queue/queue.js';
import { orgClient, type OrgClient } from '../api/org/org-client.js';
import { consentScenario, MANUAL_NAME_SLOT, type User } from '../api/support/consent-scenario.js';
import { startTestService, type TestService } from '../api/support/service.js';
import { mainBackend } from '../support/databases.js';
import { redisServerBin, startOwnRedis, type OwnRedis } from '../support/own-redis.js';
import { RecordingMailer } from '../support/recording-mailer.js';

type Adoption = { adoptionId: string; state: string };

const bin = redisServerBin();

describe(`Redis stopped: keeps with a cold key still pend, and the drain job is not lost but runs once Redis returns (issue 16, R-REL-02; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let redis: OwnRedis;
  let service: TestService;
  let queue: JobQueue;
  let workers: CopyWorkers;
  let api: OrgClient;
  let owner: User;
  let orgId: string;
  let token: string;

  before(async function () {
    if (!bin) this.skip(); // a redis-server of its own is needed
    redis = await startOwnRedis(bin);
    service = await startTestService({ domain: { mailer } });
    queue = await openJobQueue(
      { redisUrl: redis.url, db: service.db },
      { prefix: `t${randomBytes(4).toString('hex')}`, backoffMs: 50, leaseMs: 1000, onError: () => undefined },
    );
    workers = await startWorkers(service, queue);
    api = orgClient(service.url, mailer);
    owner = await api.user();
    orgId = await api.organization(owner.token, 'Acme');
    token = await api.signIn(owner.token, orgId);
  });
  after(async () => {
    await redis?.start().catch(() => undefined);
    await workers?.stop();
    await queue?.close();
    await service?.close();
    await redis?.stop();
  });

  const adoptions = async (requestId: string) => (await api.get(`/org/v1/requests/${requestId}`, token)).body.adoptions as Adoption[];

  it('with Redis away a keep on a cold key answers pending; the sign-in’s drain waits and materializes the copy once Redis is back', async () => {
    const calls = consentScenario(api, () => token);
    const slot = MANUAL_NAME_SLOT;
    const m = await api.post('/org/v1/manifests', token, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [slot],
    });
    const manifest = m.body.manifest as { manifestId: string; slots: Array<{ slotId: string }> };
    const ann = await api.user();
    const doc = await calls.createDoc(ann, 'PersonFullName', { givenName: 'Ann', familyName: 'Example' });
    const slotId = manifest.slots[0]!.slotId;
    const requestId = await calls.connected(manifest.manifestId, ann, { [slotId]: [doc] });
    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);

    await redis.stop();
    const kept = await api.post(`/org/v1/requests/${requestId}/slots/${slotId}/adopt`, token);
    expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
    expect((kept.body.adoptions as Adoption[])[0]!.state).to.equal('pending');
    // A member signs in: the key is warm and the log holds the KeyWarmed the drain reacts to.
    token = await api.signIn(owner.token, orgId);
    await new Promise((r) => setTimeout(r, 1500));
    expect(
      (await adoptions(requestId)).map((a) => a.state),
      'no job can run while Redis is away',
    ).to.deep.equal(['pending']);

    await redis.start();
    for (let i = 0; i < 200; i++) {
      if ((await adoptions(requestId))[0]?.state === 'materialized') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await adoptions(requestId)).map((a) => a.state)).to.deep.equal(['materialized']);
    const keptEvents = await service.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM es.events WHERE type = 'CopyKept' AND data->>'requestId' = $1`,
      [requestId],
    );
    expect(keptEvents.rows[0]!.n, 'kept once').to.equal(1);
  });
});
