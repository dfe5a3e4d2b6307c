import { expect } from 'chai';
import { generateMasterKey, generatePrivateJwk, serializeJwkSet } from '../../src/identity/keys/index.js';
import { formatPosition } from '../../src/events/position.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { allProjectors, replay } from '../../src/projections/index.js';
import { copyWorkOf, type CopyWorkerDeps, type CopyWorkers } from '../../src/workers/copy-workers.js';
import { AUTO_KEEP_QUEUE, DRAIN_QUEUE } from '../../src/workers/reactors/copy-reactors.js';
import { openWorkerQueue, startWorkers } from '../support/copy-workers.js';
import type { JobQueue } from '../../src/workers/queue/queue.js';
import { orgClient, type OrgClient } from '../api/org/org-client.js';
import { startTestService, type TestService } from '../api/support/service.js';
import { mainBackend, openSecondConnection, type TestDatabase } from '../support/databases.js';
import { RecordingMailer } from '../support/recording-mailer.js';

type Gql = { data?: Record<string, any> | null; errors?: unknown[] };
type User = { email: string; token: string };
type Adoption = { adoptionId: string; sourceVersion: number; state: string; orgVersion?: number };

const BASE = 'http://service.test/schemas/core';
const queueKind = process.env.REDIS_URL ? 'BullMQ on Redis' : 'the SQL queue';
const name = (givenName: string) => ({ givenName, familyName: 'Example' });

describe(`the copy workers: drain on sign-in and automatic keeps, through reactors and ${queueKind} (${mainBackend})`, function () {
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
  let manifest: { manifestId: string; slots: Array<{ slotId: string }> };
  let env: NodeJS.ProcessEnv;

  const gql = async (u: User, query: string, variables: Record<string, unknown> = {}) =>
    (await api.post('/graphql', u.token, { query, variables })).body as Gql;
  const ok = (r: Gql) => {
    if (r.errors) expect.fail(JSON.stringify(r.errors));
    return r.data!;
  };
  const createDoc = async (data: Record<string, unknown>) =>
    ok(
      await gql(ann, 'mutation($input: DocumentInput!) { user { document { create(input: $input) { id } } } }', {
        input: { name: 'Name', schemaRef: `${BASE}/PersonFullName.json`, data },
      }),
    ).user.document.create.id as string;
  const updateDoc = async (id: string, data: Record<string, unknown>) =>
    ok(
      await gql(ann, 'mutation($id: ID!, $i: DocumentUpdateInput!) { user { document { update(id: $id, input: $i) { version } } } }', {
        id,
        i: { data },
      }),
    );
  async function connected(slotIndex: number, doc: string): Promise<string> {
    const sent = await api.post('/org/v1/requests', token, { manifestId: manifest.manifestId, recipientEmail: ann.email });
    const requestId = (sent.body.request as { requestId: string }).requestId;
    ok(
      await gql(ann, 'mutation($r: ID!, $g: [GrantInput!]!) { user { request { accept(requestId: $r, grants: $g) { requestId } } } }', {
        r: requestId,
        g: [{ slotId: manifest.slots[slotIndex]!.slotId, resourceIds: [doc] }],
      }),
    );
    return requestId;
  }
  const adoptions = async (requestId: string, as = token) =>
    (await api.get(`/org/v1/requests/${requestId}`, as)).body.adoptions as Adoption[];
  /** Polls the request detail until `done` holds: the workers run on their own time. */
  async function eventually(requestId: string, done: (a: Adoption[]) => boolean, as = token): Promise<Adoption[]> {
    for (let i = 0; i < 200; i++) {
      const now = await adoptions(requestId, as);
      if (done(now)) return now;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`adoptions never settled: ${JSON.stringify(await adoptions(requestId))}`);
  }
  const keptEvents = async (requestId: string) =>
    Number(
      (
        await service.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM es.events WHERE type = 'CopyKept' AND data->>'requestId' = $1`,
          [requestId],
        )
      ).rows[0]!.n,
    );
  const start = (copies: CopyWorkerDeps['copies']) => startWorkers(service, queue, copies);
  const slot = { label: 'Name', group: 'KYC', multiple: false, kind: 'schema', target: 'PersonFullName', verbs: ['keep'] };

  before(async () => {
    // Fixed keys, so a second instance (the restart below) opens what this one sealed.
    env = { JWT_PRIVATE_KEY: serializeJwkSet([await generatePrivateJwk()]), MASTER_KEY: generateMasterKey().toString('base64') };
    service = await startTestService({ domain: { mailer, env } });
    queue = await openWorkerQueue(service);
    workers = await start(copyWorkOf(service.domain!.copies));
    api = orgClient(service.url, mailer);
    owner = await api.user();
    orgId = await api.organization(owner.token, 'Acme');
    token = await api.signIn(owner.token, orgId);
    const m = await api.post('/org/v1/manifests', token, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [
        { ...slot, adoption: 'manual' },
        { ...slot, label: 'Name (auto)', adoption: 'auto' },
      ],
    });
    manifest = m.body.manifest as typeof manifest;
    ann = await api.user();
  });
  after(async () => {
    await workers.stop();
    await queue.close();
    await service.close();
  });

  it('a keep pended with a cold key is materialized by the worker once a member signs in, without the drain route', async () => {
    const requestId = await connected(0, await createDoc(name('Ann')));
    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);
    const kept = await api.post(`/org/v1/requests/${requestId}/slots/${manifest.slots[0]!.slotId}/adopt`, token);
    expect((kept.body.adoptions as Adoption[])[0]!.state).to.equal('pending');

    token = await api.signIn(owner.token, orgId);
    const [adoption] = await eventually(requestId, (a) => a[0]?.state === 'materialized');
    expect(adoption).to.include({ orgVersion: 1, sourceVersion: 1 });
    expect(await keptEvents(requestId)).to.equal(1);
  });

  it('on an auto slot the granted version is kept at once, and each new version as soon as it exists; cold ones wait for a sign-in', async () => {
    const doc = await createDoc(name('Auto'));
    const requestId = await connected(1, doc);
    await eventually(requestId, (a) => a.length === 1 && a[0]!.state === 'materialized');

    await updateDoc(doc, name('Auto 2'));
    const two = await eventually(requestId, (a) => a.some((x) => x.sourceVersion === 2 && x.state === 'materialized'));
    expect(two.find((x) => x.sourceVersion === 2)!.orgVersion).to.equal(2);

    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);
    await updateDoc(doc, name('Auto 3'));
    await eventually(requestId, (a) => a.some((x) => x.sourceVersion === 3 && x.state === 'pending'));
    token = await api.signIn(owner.token, orgId);
    await eventually(requestId, (a) => a.some((x) => x.sourceVersion === 3 && x.state === 'materialized'));
    expect(await keptEvents(requestId)).to.equal(3);
  });

  it('a new version of a document granted nowhere queues no job; once it is granted on an auto slot, the next one is kept', async () => {
    const doc = await createDoc(name('Alone'));
    await updateDoc(doc, name('Alone 2'));
    const requestId = await connected(1, doc);
    await eventually(requestId, (a) => a.some((x) => x.sourceVersion === 2 && x.state === 'materialized'));
    await updateDoc(doc, name('Alone 3'));
    await eventually(requestId, (a) => a.some((x) => x.sourceVersion === 3 && x.state === 'materialized'));

    const updates = (
      await service.db.query<{ id: string }>(
        `SELECT event_id::text AS id FROM es.events WHERE type = 'DocumentUpdated' AND data->>'resourceId' = $1 ORDER BY position`,
        [doc],
      )
    ).rows.map((r) => r.id);
    expect(updates).to.have.length(2);
    // The reactor passed version 2 before it reached version 3: its lookup found no grant then.
    expect(await queue.status(AUTO_KEEP_QUEUE, `auto-keep-${updates[0]}`)).to.equal(null);
    expect(await queue.status(AUTO_KEEP_QUEUE, `auto-keep-${updates[1]}`)).to.not.equal(null);
    expect(await keptEvents(requestId)).to.equal(2);
    // An id no grant can have is granted nowhere, and does not fail the lookup of the others.
    expect([...(await copyWorkOf(service.domain!.copies).grantedAmong(['not-a-uuid', doc]))]).to.deep.equal([doc]);
  });

  it("asks where a page's new versions are granted only once the grants read model holds the page, so no earlier grant is missed", async () => {
    const doc = await createDoc(name('Ordered'));
    await connected(0, doc);
    const real = copyWorkOf(service.domain!.copies);
    const steps: string[] = [];
    await workers.stop();
    workers = await startWorkers(
      service,
      queue,
      {
        grantsOf: (id) => real.grantsOf(id),
        keepAutomatically: (...a) => real.keepAutomatically(...a),
        drainOrganization: (...a) => real.drainOrganization(...a),
        grantedAmong: async (ids) => {
          steps.push(`lookup ${ids.includes(doc) ? 'with' : 'without'} the document`);
          return real.grantedAmong(ids);
        },
      },
      async (position, eventTypes) => {
        if (eventTypes.includes('SlotGranted')) steps.push(`wait for grants up to ${formatPosition(position)}`);
        await service.engine.waitFor(position, { eventTypes });
      },
    );
    try {
      await updateDoc(doc, name('Ordered 2'));
      const updated = (await service.store.readStream(`resource-${doc}`)).at(-1)!;
      expect(updated.type).to.equal('DocumentUpdated');
      // The document is granted on a manual slot: its new version is looked up and found.
      for (let i = 0; i < 200 && !steps.includes('lookup with the document'); i++) await new Promise((r) => setTimeout(r, 25));
      const lookup = steps.indexOf('lookup with the document');
      expect(lookup, steps.join('\n')).to.be.greaterThan(0);
      expect(steps[lookup - 1], steps.join('\n')).to.equal(`wait for grants up to ${formatPosition(updated.position)}`);
    } finally {
      await workers.stop();
      workers = await start(real);
    }
  });

  it('a drain worker killed mid-job and restarted: the job runs again and the copy is materialized once', async () => {
    const requestId = await connected(0, await createDoc(name('Crash')));
    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);
    await api.post(`/org/v1/requests/${requestId}/slots/${manifest.slots[0]!.slotId}/adopt`, token);

    // This worker keeps the copy and then dies before it can acknowledge its job.
    const real = copyWorkOf(service.domain!.copies);
    let died!: () => void;
    const dead = new Promise<void>((resolve) => (died = resolve));
    await workers.stop();
    workers = await start({
      grantsOf: (id) => real.grantsOf(id),
      grantedAmong: (ids) => real.grantedAmong(ids),
      keepAutomatically: (...a) => real.keepAutomatically(...a),
      drainOrganization: async (...a) => {
        await real.drainOrganization(...a);
        died();
        return new Promise<number>(() => undefined);
      },
    });
    token = await api.signIn(owner.token, orgId);
    await dead;
    await workers.abandon();

    workers = await start(real);
    const [adoption] = await eventually(requestId, (a) => a[0]?.state === 'materialized');
    expect(adoption!.orgVersion).to.equal(1);
    // The job ran again to its end on the new worker (the first never acknowledged it), and kept nothing twice.
    const warmed = (
      await service.db.query<{ id: string }>(
        `SELECT event_id::text AS id FROM es.events WHERE type = 'KeyWarmed' AND data->>'organizationId' = $1
         ORDER BY position DESC LIMIT 1`,
        [orgId],
      )
    ).rows[0]!.id;
    for (let i = 0; i < 200 && (await queue.status(DRAIN_QUEUE, `drain-${warmed}`))?.state !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await queue.status(DRAIN_QUEUE, `drain-${warmed}`))?.state).to.equal('completed');
    expect(await keptEvents(requestId)).to.equal(1);
  });

  it("one organization's drain still running holds up no other's: the other's pending keep is materialized meanwhile", async () => {
    const held = await connected(0, await createDoc(name('Held')));
    expect((await api.post('/org/v1/key/seal', token)).status).to.equal(200);
    await api.post(`/org/v1/requests/${held}/slots/${manifest.slots[0]!.slotId}/adopt`, token);
    const betaId = await api.organization(owner.token, 'Beta');
    let beta = await api.signIn(owner.token, betaId);
    const betaSlots = (
      await api.post('/org/v1/manifests', beta, {
        name: 'KYC',
        purpose: 'To check who you are',
        retention: 'P30D',
        slots: [{ ...slot, adoption: 'manual' }],
      })
    ).body.manifest as typeof manifest;
    const sent = await api.post('/org/v1/requests', beta, { manifestId: betaSlots.manifestId, recipientEmail: ann.email });
    const betaRequest = (sent.body.request as { requestId: string }).requestId;
    const doc = await createDoc(name('Beta'));
    ok(
      await gql(ann, 'mutation($r: ID!, $g: [GrantInput!]!) { user { request { accept(requestId: $r, grants: $g) { requestId } } } }', {
        r: betaRequest,
        g: [{ slotId: betaSlots.slots[0]!.slotId, resourceIds: [doc] }],
      }),
    );
    expect((await api.post('/org/v1/key/seal', beta)).status).to.equal(200);
    const pended = await api.post(`/org/v1/requests/${betaRequest}/slots/${betaSlots.slots[0]!.slotId}/adopt`, beta);
    expect((pended.body.adoptions as Adoption[])[0]!.state).to.equal('pending');

    // Acme's drain starts and then waits, as one over many requests would, until the test lets it go.
    const real = copyWorkOf(service.domain!.copies);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let acmeDraining!: () => void;
    const draining = new Promise<void>((resolve) => (acmeDraining = resolve));
    await workers.stop();
    workers = await start({
      ...real,
      drainOrganization: async (organizationId, context) => {
        if (organizationId === orgId) {
          acmeDraining();
          await released;
        }
        return real.drainOrganization(organizationId, context);
      },
    });
    try {
      token = await api.signIn(owner.token, orgId);
      await draining;
      beta = await api.signIn(owner.token, betaId);
      const [kept] = await eventually(betaRequest, (a) => a[0]?.state === 'materialized', beta);
      expect(kept).to.include({ orgVersion: 1, sourceVersion: 1 });
      expect((await adoptions(held))[0]!.state, "Acme's drain is still held").to.equal('pending');
    } finally {
      release();
    }
    await eventually(held, (a) => a[0]?.state === 'materialized');
    await workers.stop();
    workers = await start(real);
  });

  const snapshot = async () => ({
    adoptions: (await service.db.query('SELECT * FROM rm.adoptions ORDER BY adoption_id')).rows,
    versions: (await service.db.query('SELECT * FROM rm.copy_versions ORDER BY org_resource_id, org_version')).rows,
    proposals: (await service.db.query('SELECT * FROM rm.proposals ORDER BY proposal_id')).rows,
    receipts: (await service.db.query('SELECT * FROM rm.receipts ORDER BY event_id')).rows,
    reactors: (await service.db.query('SELECT reactor, commit_pos::text, prepare_pos::text FROM reactors.checkpoints ORDER BY reactor'))
      .rows,
    events: await service.db.query('SELECT count(*)::int AS n FROM es.events'),
  });

  it('a replay rebuilds every adoption, chain version, proposal and receipt equal, and runs no reactor again', async () => {
    const doc = await createDoc(name('Replay'));
    const requestId = await connected(1, doc);
    await eventually(requestId, (a) => a[0]?.state === 'materialized');
    const fixed = await api.post(`/org/v1/requests/${requestId}/slots/${manifest.slots[1]!.slotId}/correct`, token, {
      expectedSourceVersion: 1,
      expectedOrgVersion: 1,
      data: name('Replayed'),
    });
    expect(fixed.status, JSON.stringify(fixed.body)).to.equal(200);
    // A proposal on the manual slot, read once (a receipt), then dismissed.
    const manual = await createDoc(name('Proposed'));
    const other = await connected(0, manual);
    await updateDoc(manual, name('Proposed 2'));
    let open: Array<{ proposalId: string }> = [];
    for (let i = 0; i < 200 && open.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      open = (await api.get(`/org/v1/requests/${other}/proposals`, token)).body.proposals as typeof open;
    }
    expect((await api.get(`/org/v1/requests/${other}/proposals/${open[0]!.proposalId}/candidate`, token)).status).to.equal(200);
    expect((await api.post(`/org/v1/requests/${other}/proposals/${open[0]!.proposalId}/dismiss`, token)).status).to.equal(200);
    await new Promise((r) => setTimeout(r, 300));
    const before = await snapshot();
    expect(before.versions.length).to.be.greaterThan(0);
    expect(before.proposals.length).to.be.greaterThan(0);
    expect(before.receipts.length).to.be.greaterThan(0);

    // The bare store: replay reads the log inside its own transaction only through a SqlEventStore.
    await replay({ db: service.db, store: await SqlEventStore.open(service.db), projectors: allProjectors });
    await new Promise((r) => setTimeout(r, 500));
    const after = await snapshot();
    expect({ ...after, reactors: null }).to.deep.equal({ ...before, reactors: null });
    // No reactor went back to run again; one may have written its move past events it ignores since (reactor-runner.ts).
    const at = (rows: Array<Record<string, unknown>>) => rows.map((r) => [r.reactor, BigInt(String(r.commit_pos))] as const);
    for (const [i, [reactor, commit]] of at(after.reactors).entries()) {
      expect(reactor).to.equal(at(before.reactors)[i]![0]);
      expect(commit >= at(before.reactors)[i]![1], `${String(reactor)} moved back`).to.equal(true);
    }
  });

  it('after a restart on the same data the copies and chains are intact, and the key is cold until a member signs in', async () => {
    const requestId = await connected(0, await createDoc(name('Restart')));
    expect((await api.post(`/org/v1/requests/${requestId}/slots/${manifest.slots[0]!.slotId}/adopt`, token)).status).to.equal(200);
    const copies = (await api.get(`/org/v1/requests/${requestId}/copies`, token)).body;
    const t = service.t;
    // On PostgreSQL the new instance has its own connections, as a restarted process would.
    const database: TestDatabase = t.url ? { db: openSecondConnection(t), url: t.url, drop: async () => undefined } : t;
    const restarted = await startTestService({ database, domain: { mailer, env } });
    try {
      const b = orgClient(restarted.url, mailer);
      expect((await b.get(`/org/v1/requests/${requestId}/copies`, token)).status).to.equal(423);
      const fresh = await b.signIn(owner.token, orgId);
      expect((await b.get(`/org/v1/requests/${requestId}/copies`, fresh)).body).to.deep.equal(copies);
    } finally {
      await restarted.close();
      if (t.url) await database.db.close();
    }
  });
});
