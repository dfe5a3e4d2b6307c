import { expect } from 'chai';
import { PostgresDb } from '../../src/db/postgres-db.js';
import type { SqlDb } from '../../src/db/sql.js';
import { checkReadiness } from '../../src/observability/readiness.js';
import type { ProjectorStatus } from '../../src/projections/engine.js';
import type { QueueDepth } from '../../src/workers/queue/queue.js';
import { START } from '../../src/events/position.js';
import { allProjectors } from '../../src/projections/index.js';
import { mainBackend } from '../support/databases.js';
import { newEvent, uniqueStream } from '../support/events.js';
import { OutageDb, TcpProxy } from './support/outages.js';
import { startTestService, type TestService } from './support/service.js';

type ReadyBody = {
  status?: string;
  code?: string;
  detail?: string;
  checks: Record<string, { status: string; reason?: string; lagSeconds?: Record<string, number> }>;
};

async function readyz(s: TestService): Promise<{ status: number; contentType: string | null; text: string; body: ReadyBody }> {
  const res = await fetch(`${s.url}/readyz`);
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), text, body: JSON.parse(text) as ReadyBody };
}

describe(`GET /healthz and /readyz (contract §7, ${mainBackend})`, function () {
  this.timeout(60_000);
  let s: TestService;
  let outage: OutageDb;
  const others: TestService[] = [];
  before(async () => {
    s = await startTestService({ wrapDb: (db) => (outage = new OutageDb(db)) });
  });
  after(async () => {
    await s.close();
  });
  afterEach(async () => {
    outage.down = false;
    await Promise.all(others.splice(0).map((o) => o.close()));
  });
  const start = async (...args: Parameters<typeof startTestService>) => {
    const o = await startTestService(...args);
    others.push(o);
    return o;
  };

  it('/healthz answers 200 while the process is up', async () => {
    const res = await fetch(`${s.url}/healthz`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ status: 'ok' });
  });

  it('/readyz answers 200 with every check when the stores answer and projections are caught up', async () => {
    const { status, body } = await readyz(s);
    expect(status).to.equal(200);
    expect(body.status).to.equal('ready');
    expect(body.checks).to.deep.equal({
      database: { status: 'ok' },
      events: { status: 'ok' },
      queue: { status: 'ok' },
      projections: { status: 'ok', lagSeconds: Object.fromEntries(allProjectors.map((p) => [p.name, 0])) },
    });
  });

  it('/readyz turns 503 while the database is unreachable, naming the check, and 200 again when it returns', async () => {
    expect((await readyz(s)).status).to.equal(200);

    outage.down = true;
    const down = await readyz(s);
    expect(down.status).to.equal(503);
    expect(down.contentType).to.match(/^application\/problem\+json/);
    expect(down.body).to.include({ code: 'not_ready', status: 503 });
    expect(down.body.checks.database).to.deep.equal({ status: 'failed', reason: 'unreachable' });
    expect(down.body.detail).to.contain('database');
    expect(down.text).not.to.match(/ECONNREFUSED|10\.9\.8\.7|SELECT/);

    outage.down = false;
    const back = await readyz(s);
    expect(back.status, back.text).to.equal(200);
  });

  (mainBackend === 'postgres' ? it : it.skip)('/readyz follows a real PostgreSQL connection going away and coming back', async () => {
    const target = new URL(process.env.DATABASE_URL!);
    const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.start();
    let viaProxy: SqlDb | undefined;
    try {
      const o = await start({
        readinessDb: async (t) => {
          const url = new URL(t.url!);
          url.hostname = '127.0.0.1';
          url.port = String(proxy.port);
          return (viaProxy = new PostgresDb(url.toString(), { max: 2 }));
        },
      });
      expect((await readyz(o)).status).to.equal(200);
      await proxy.stop();
      const down = await readyz(o);
      expect(down.status).to.equal(503);
      expect(down.body.checks.database?.status).to.equal('failed');
      await proxy.start();
      expect((await readyz(o)).status).to.equal(200);
    } finally {
      await proxy.stop();
      await viaProxy?.close();
    }
  });

  it('/readyz turns 503 when a projector trails the log past the bound, and 200 once it caught up', async () => {
    const o = await start({ startEngine: false, readiness: { maxLagSeconds: 30 } });
    const appended = await o.store.appendToStream(
      uniqueStream(),
      [newEvent('Happened', {}, { occurredAt: new Date(Date.now() - 120_000).toISOString() })],
      'no_stream',
    );

    const behind = await readyz(o);
    expect(behind.status).to.equal(503);
    expect(behind.body.checks.projections?.status).to.equal('failed');
    expect(behind.body.checks.projections?.reason).to.equal('behind');
    expect(behind.body.checks.projections?.lagSeconds?.stream_heads).to.be.within(119, 180);
    expect(behind.body.checks.database?.status).to.equal('ok');

    await o.engine.start();
    await o.engine.waitFor(appended.position);
    // The read models that follow the log (the events feed) catch up on their own loop, a moment later.
    let ready = await readyz(o);
    for (const deadline = Date.now() + 5_000; ready.status !== 200 && Date.now() < deadline; ready = await readyz(o))
      await new Promise((r) => setTimeout(r, 50));
    expect(ready.status, JSON.stringify(ready.body)).to.equal(200);
  });
});

describe('readiness checks (contract §7)', () => {
  const caughtUp = { status: async (): Promise<ProjectorStatus[]> => [] };
  const store = { headPosition: async () => null, readAll: async () => [] };
  const depth: QueueDepth = { waiting: 0, active: 0, delayed: 0, failed: 0 };

  it('counts a store that does not answer within the budget as down (timeout), without waiting for it', async () => {
    const started = Date.now();
    const r = await checkReadiness(
      {
        db: { ping: async () => true },
        store,
        engine: caughtUp,
        queue: { depth: () => new Promise<QueueDepth>(() => undefined) },
        queueNames: ['mail'],
      },
      { checkTimeoutMs: 100 },
    );
    // A never-answering queue would hang forever; a loose bound keeps a loaded CI machine green.
    expect(Date.now() - started).to.be.below(3000);
    expect(r.ready).to.equal(false);
    expect(r.checks.queue).to.deep.equal({ status: 'failed', reason: 'timeout' });
    expect(r.checks.database).to.deep.equal({ status: 'ok' });
  });

  it('checks the event store and every watched queue', async () => {
    const asked: string[] = [];
    const r = await checkReadiness({
      db: { ping: async () => true },
      store: {
        ...store,
        headPosition: async () => {
          throw new Error('esdb down');
        },
      },
      engine: { status: async () => [{ projector: 'p', position: START, eventsSeen: 0, running: true, stalled: null, inline: false }] },
      queue: {
        depth: async (name) => {
          asked.push(name);
          return depth;
        },
      },
      queueNames: ['mail', 'drain'],
    });
    expect(r.checks.events).to.deep.equal({ status: 'failed', reason: 'unreachable' });
    expect(asked).to.have.members(['mail', 'drain']);
    expect(r.checks.projections).to.deep.equal({ status: 'ok', lagSeconds: { p: 0 } });
  });
});
