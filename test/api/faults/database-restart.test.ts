import { expect } from 'chai';
import pg from 'pg';
import { PostgresDb } from '../../../src/db/postgres-db.js';
import { mainBackend } from '../../support/databases.js';
import { postgresBin, startOwnCluster, type OwnCluster } from '../../support/own-cluster.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient } from '../org/org-client.js';
import { startTestService, type TestService } from '../support/service.js';

const bin = postgresBin();
/** No answer may take longer than this while the database is away: a 503 comes fast, never a hang. */
const ANSWER_BOUND_MS = 5_000;

type Outcome = {
  readonly status: number;
  readonly code?: string;
  readonly ms: number;
  readonly type: string;
  readonly retryAfter: string | null;
};

describe('PostgreSQL restarted under load: 503 meanwhile, recovery by itself, /readyz in both phases (issue 16, R-REL-01)', function () {
  this.timeout(180_000);
  const mailer = new RecordingMailer();
  let cluster: OwnCluster;
  let service: TestService;
  let token: string;

  before(async function () {
    if (mainBackend !== 'postgres' || !bin) this.skip(); // a cluster of its own needs PostgreSQL's server binaries
    cluster = await startOwnCluster(bin);
    const admin = new pg.Client({ connectionString: cluster.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE svc');
    await admin.end();
    const db = new PostgresDb(cluster.url('svc'));
    service = await startTestService({ database: { db, url: cluster.url('svc'), drop: () => db.close() }, domain: { mailer } });
    token = (await orgClient(service.url, mailer).user()).token;
  });
  after(async () => {
    await service?.close();
    await service?.t.drop();
    await cluster?.stop();
  });

  const call = async (path: string, init: RequestInit = {}): Promise<Outcome> => {
    const started = performance.now();
    const res = await fetch(`${service.url}${path}`, { ...init, signal: AbortSignal.timeout(ANSWER_BOUND_MS * 4) });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const code = type.includes('json') ? (JSON.parse(text) as { code?: string; errors?: Array<{ extensions?: { code?: string } }> }) : {};
    const found = code.code ?? code.errors?.[0]?.extensions?.code;
    return {
      status: res.status,
      ...(found === undefined ? {} : { code: found }),
      ms: performance.now() - started,
      type,
      retryAfter: res.headers.get('retry-after'),
    };
  };
  /** A read (GraphQL, authenticated) and a write (send-otp) a client keeps making. */
  const load = [
    () =>
      call('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: '{ user { me { email } } }' }),
      }),
    () =>
      call('/auth/send-otp', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `load-${Math.random().toString(36).slice(2)}@example.com` }),
      }),
  ];
  /** Four clients calling in a loop until `until` resolves; every outcome kept. */
  async function underLoad(until: Promise<unknown>): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    let done = false;
    void until.finally(() => (done = true));
    await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        while (!done) outcomes.push(await load[i % load.length]!());
      }),
    );
    return outcomes;
  }

  it('answers 503 service_unavailable (never 500, never a hang) while the database is down, and recovers by itself', async () => {
    const up = await underLoad(new Promise((r) => setTimeout(r, 500)));
    expect(
      up.every((o) => o.status === 200),
      JSON.stringify(up.find((o) => o.status !== 200)),
    ).to.equal(true);

    // Down: the server shuts down under the load and stays away for two seconds.
    const down = await underLoad(cluster.pause().then(() => new Promise((r) => setTimeout(r, 2_000))));
    const readyDown = await call('/readyz');
    const refused = down.filter((o) => o.status !== 200);
    expect(refused.length, 'some calls met the database away').to.be.greaterThan(0);
    for (const o of refused) {
      expect(o.status, JSON.stringify(o)).to.equal(503);
      expect(o.code, JSON.stringify(o)).to.be.oneOf(['service_unavailable', 'SERVICE_UNAVAILABLE']);
    }
    for (const o of refused.filter((x) => x.code === 'service_unavailable')) {
      expect(o.type).to.match(/^application\/problem\+json/);
      expect(o.retryAfter).to.equal('1');
    }
    expect(Math.max(...down.map((o) => o.ms)), 'the slowest answer').to.be.lessThan(ANSWER_BOUND_MS);
    expect(readyDown.status).to.equal(503);

    // Back: the service recovers without a restart of its own.
    await cluster.resume();
    const deadline = Date.now() + 20_000;
    let back: Outcome[] = [];
    while (Date.now() < deadline) {
      back = await Promise.all(load.map((f) => f()));
      if (back.every((o) => o.status === 200)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(back.map((o) => o.status)).to.deep.equal([200, 200]);
    expect((await call('/readyz')).status).to.equal(200);
    const after = await underLoad(new Promise((r) => setTimeout(r, 500)));
    expect(after.every((o) => o.status === 200)).to.equal(true);
  });
});
