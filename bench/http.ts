import autocannon from 'autocannon';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/api/app.js';
import { createServer } from '../src/api/server.js';
import { loadConfig } from '../src/config.js';
import type { SqlDb } from '../src/db/sql.js';
import { openDomainServices } from '../src/domain-services.js';
import { SqlEventStore } from '../src/events/sql/sql-event-store.js';
import { createLogger } from '../src/logger.js';
import { createMetrics } from '../src/observability/metrics.js';
import { MailUnavailableError, type MailMessage, type Mailer } from '../src/mail/index.js';
import { allProjectors, ProjectionEngine } from '../src/projections/index.js';
import { SqlJobQueue } from '../src/workers/queue/sql-queue.js';
import type { Row } from './measure.js';

/** Keeps the codes in memory: the bench logs in like a client, reading its code from the "mail". */
class CodeCatcher implements Mailer {
  readonly codes = new Map<string, string>();
  async send(m: MailMessage): Promise<void> {
    const code = m.text.match(/\b\d{6}\b/)?.[0];
    if (!code) throw new MailUnavailableError('bench: no code');
    this.codes.set(m.to, code);
  }
  async close(): Promise<void> {}
}

/** HTTP throughput of the real app over a real socket, 10 connections for a few seconds per route. */
export async function benchHttp(backend: string, db: SqlDb, seconds: number): Promise<Row[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'dss-bench-'));
  const logger = createLogger('silent');
  const store = await SqlEventStore.open(db);
  const engine = new ProjectionEngine({ db, store, projectors: allProjectors, idlePollMs: 20 });
  await engine.start();
  const queue = await SqlJobQueue.open(db);
  const mailer = new CodeCatcher();
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const metrics = createMetrics();
  const domain = await openDomainServices({
    config,
    logger,
    db,
    store,
    metrics,
    waitFor: (p, eventTypes) => engine.waitFor(p, { eventTypes }),
    mailer,
  });
  const app = createApp({ config, logger, db, store, engine, queue, metrics, routes: domain.routes });
  const server = createServer({ app, logger });
  const port = await server.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  try {
    const post = (path: string, body: unknown, token?: string) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    await post('/auth/send-otp', { email: 'bench@example.com' });
    const login = (await (
      await post('/auth/verify-otp', { email: 'bench@example.com', code: mailer.codes.get('bench@example.com') })
    ).json()) as { token: string };
    await post('/graphql', { query: 'mutation { user { register(input: {}) { userId } } }' }, login.token);

    const rows: Row[] = [];
    const run = async (operation: string, path: string, options: Partial<autocannon.Options> = {}) => {
      const r = await autocannon({ url: `${url}${path}`, connections: 10, duration: seconds, ...options });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${operation}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
      rows.push({ backend, operation, count: r.requests.total, perSecond: r.requests.average, p50ms: r.latency.p50, p99ms: r.latency.p99 });
    };
    await run('HTTP GET /healthz', '/healthz');
    await run('HTTP GraphQL user.me (token + session check)', '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${login.token}` },
      body: JSON.stringify({ query: '{ user { me { userId email sessions { sessionId current } } } }' }),
    });
    return rows;
  } finally {
    await server.close();
    await engine.stop();
    await queue.close();
    await domain.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
