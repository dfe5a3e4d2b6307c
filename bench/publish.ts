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
import { MailUnavailableError, type MailMessage, type Mailer } from '../src/mail/index.js';
import { createMetrics } from '../src/observability/metrics.js';
import { allProjectors, ProjectionEngine } from '../src/projections/index.js';
import { inlineProjection } from '../src/projections/inline.js';
import { SqlJobQueue } from '../src/workers/queue/sql-queue.js';
import { runLoad, type Script } from './load.js';
import type { Row } from './measure.js';
import { UNLIMITED } from './service-process.js';

/** Keeps the codes in memory: the bench logs in like a client, reading its code from the "mail". */
class CodeCatcher implements Mailer {
  readonly codes = new Map<string, string>();
  async send(m: MailMessage): Promise<void> {
    const code = /\b\d{6}\b/.exec(m.text)?.[0];
    if (!code) throw new MailUnavailableError('bench: no code');
    this.codes.set(m.to, code);
  }
  async close(): Promise<void> {}
}

const UPDATE = 'mutation($id: ID!, $input: DocumentUpdateInput!) { user { document { update(id: $id, input: $input) { version } } } }';
const CREATE = 'mutation($input: DocumentInput!) { user { document { create(input: $input) { id } } } }';

/**
 * The real app over a real socket, loaded by autocannon: token checks (GraphQL user.me) and
 * document publishes (GraphQL update: token, validate, seal, append, read models), each connection
 * on its own document so no call is a no-op or a clash. In process, inline projection as shipped.
 */
export async function benchPublish(db: SqlDb, options: { seconds: number; clients: readonly number[] }): Promise<Row[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'dss-bench-'));
  const logger = createLogger('silent');
  const log = await SqlEventStore.open(db);
  const engine = new ProjectionEngine({ db, store: log, projectors: allProjectors, inline: log });
  await engine.start();
  // As src/main.ts composes it: commands append through a store that writes the inline read models.
  const sqlStore = log.withInline(inlineProjection(allProjectors, engine.schema));
  const queue = await SqlJobQueue.open(db);
  const mailer = new CodeCatcher();
  // One token publishes and checks itself from every connection, thousands of times a second: the
  // fair-use limits would answer most with 429, and its validations may otherwise run or wait 4 at a time.
  const config = loadConfig({ ...UNLIMITED, VALIDATION_MAX_PER_CALLER: '64', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const metrics = createMetrics();
  const waitFor = (p: Parameters<ProjectionEngine['waitFor']>[0], eventTypes: readonly string[]) => engine.waitFor(p, { eventTypes });
  const domain = await openDomainServices({ config, logger, db, store: sqlStore, metrics, waitFor, mailer });
  const app = createApp({ config, logger, db, store: sqlStore, engine, queue, metrics, routes: domain.routes });
  const server = createServer({ app, logger });
  const url = `http://127.0.0.1:${await server.listen(0, '127.0.0.1')}`;
  const post = async (path: string, body: unknown, token?: string): Promise<Record<string, unknown>> => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  try {
    await post('/auth/send-otp', { email: 'bench@example.com' });
    const { token } = (await post('/auth/verify-otp', { email: 'bench@example.com', code: mailer.codes.get('bench@example.com') })) as {
      token: string;
    };
    await post('/graphql', { query: 'mutation { user { register(input: {}) { userId } } }' }, token);
    const documents: string[] = [];
    for (let i = 0; i < Math.max(...options.clients); i++) {
      const input = { name: `doc ${i}`, documentSchema: { type: 'object' }, data: { n: 0 } };
      const created = (await post('/graphql', { query: CREATE, variables: { input } }, token)) as {
        data: { user: { document: { create: { id: string } } } };
      };
      documents.push(created.data.user.document.create.id);
    }
    const rows: Row[] = [];
    // runLoad counts a GraphQL answer with errors as an error, as it does for the service children.
    const load = async (name: string, section: Row['section'], scripts: readonly Script[]) => {
      const r = await runLoad({ urls: [url], scripts, seconds: options.seconds });
      rows.push({
        section,
        name,
        clients: scripts.length,
        count: r.responses,
        perSecond: r.perSecond,
        p50ms: r.p50ms,
        p99ms: r.p99ms,
        errors: r.errors,
      });
    };
    // Each connection publishes a new version of a document of its own every call.
    const publishing = (id: string): Script => {
      let n = 0;
      return {
        next: () => ({ method: 'POST', path: '/graphql', token, body: { query: UPDATE, variables: { id, input: { data: { n: ++n } } } } }),
      };
    };
    // Warm, as the service children's rows are (commands.ts): a run's length at the most clients, not counted.
    await runLoad({ urls: [url], scripts: documents.map(publishing), seconds: options.seconds });
    for (const clients of options.clients)
      await load('document publish (GraphQL update)', 'commands', documents.slice(0, clients).map(publishing));
    const checking: Script = { next: () => ({ method: 'POST', path: '/graphql', token, body: { query: '{ user { me { userId } } }' } }) };
    await load(
      'token check (GraphQL user.me)',
      'identity',
      Array.from({ length: 16 }, () => checking),
    );
    return rows;
  } finally {
    await server.close();
    await engine.stop();
    await queue.close();
    await domain.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
