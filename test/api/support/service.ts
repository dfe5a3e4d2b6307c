import type { Express } from 'express';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config.js';
import { openDomainServices, type DomainServices } from '../../../src/domain-services.js';
import type { Mailer } from '../../../src/mail/index.js';
import { createApp } from '../../../src/api/app.js';
import { createServer, type RunningServer } from '../../../src/api/server.js';
import type { SqlDb } from '../../../src/db/sql.js';
import { SqlEventStore } from '../../../src/events/sql/sql-event-store.js';
import type { EventStore } from '../../../src/events/store.js';
import { createLogger } from '../../../src/logger.js';
import { instrumentedStore } from '../../../src/observability/instrumented-store.js';
import { createMetrics, type Metrics } from '../../../src/observability/metrics.js';
import type { ReadinessOptions } from '../../../src/observability/readiness.js';
import { allProjectors, installReadModels, ProjectionEngine } from '../../../src/projections/index.js';
import { inlineProjection } from '../../../src/projections/inline.js';
import { SqlJobQueue } from '../../../src/workers/queue/sql-queue.js';
import { openTestDatabase, type TestDatabase } from '../../support/databases.js';
import { foldingStore } from '../../../src/commands/stream-folds.js';

export type TestService = {
  readonly url: string;
  readonly t: TestDatabase;
  /** The database the app sees: `db` of the options, or the test database. */
  readonly db: SqlDb;
  readonly store: EventStore;
  readonly engine: ProjectionEngine;
  readonly queue: SqlJobQueue;
  readonly metrics: Metrics;
  /** Present when the options asked for the domain. */
  readonly domain: DomainServices | null;
  /** Every log line the app wrote so far, parsed. */
  logs(): Array<Record<string, unknown>>;
  /** The first log line matching, waiting for it: a response can reach the client before its log line is written. */
  waitForLog(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** The raw log text, to search for anything that must never be logged. */
  logText(): string;
  close(): Promise<void>;
};

export type TestServiceOptions = {
  readonly routes?: (app: Express) => void;
  /** Wraps the test database (to simulate an outage); the store, engine and queue use the result. */
  readonly wrapDb?: (db: SqlDb) => SqlDb;
  /** The database /readyz pings, when it should differ from the one everything else uses. */
  readonly readinessDb?: (t: TestDatabase) => Promise<SqlDb>;
  readonly readiness?: ReadinessOptions;
  /**
   * false: read models installed but no projector runs, so the log can run ahead of them; the
   * store writes none of their rows, and a later `engine.start()` catches them up once.
   */
  readonly startEngine?: boolean;
  /** How read models are written: inline in each append (the default, as the service runs) or async from the log. */
  readonly projections?: 'inline' | 'async';
  readonly queueNames?: readonly string[];
  /** Mounts the domain routes (auth, GraphQL) with this mailer and clock. */
  /** Another instance on the same database: the caller keeps ownership (it is not dropped here). */
  readonly database?: TestDatabase;
  readonly domain?: { readonly mailer?: Mailer; readonly now?: () => Date; readonly env?: NodeJS.ProcessEnv };
  /** The port to listen on (a browser suite's BASE_URL names it); any free one when absent. */
  readonly port?: number;
};

/**
 * A suite calls from one client address, as one member, to a few recipients, uploading in parallel, far more often than
 * anyone would; the suites of these limits set their own (domain.env).
 */
const UNLIMITED = {
  OTP_SENDS_PER_CLIENT_PER_HOUR: '1000000',
  OTP_FAILURES_PER_CLIENT_PER_HOUR: '1000000',
  INVITES_PER_MEMBER_PER_DAY: '1000000',
  INVITES_PER_ORG_PER_DAY: '1000000',
  INVITES_PER_RECIPIENT_PER_DAY: '1000000',
  OPENS_PER_USER_PER_DAY: '1000000',
  MAX_UPLOADS_PER_USER: '1000',
  MAX_UPLOADS_TOTAL: '1000',
  RATE_LIMIT_TOKEN_PER_SECOND: '1000000',
  RATE_LIMIT_TOKEN_BURST: '1000000',
  RATE_LIMIT_ORG_PER_SECOND: '1000000',
  RATE_LIMIT_ORG_BURST: '1000000',
};

/** The real app on a real HTTP port, over a scratch database of the suite's backend. */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const t = options.database ?? (await openTestDatabase());
  const db = options.wrapDb ? options.wrapDb(t.db) : t.db;
  const lines: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
  const metrics = createMetrics();
  const sqlStore = await SqlEventStore.open(db);
  const queue = await SqlJobQueue.open(db);
  const inline = options.projections !== 'async';
  const engine = new ProjectionEngine({
    db,
    store: sqlStore,
    projectors: allProjectors,
    idlePollMs: 50,
    leaseRetryMs: 100,
    ...(inline ? { inline: sqlStore } : {}),
  });
  if (options.startEngine === false) await installReadModels(db, allProjectors, engine.schema);
  else await engine.start();
  // As src/main.ts composes it: commands append through a store that writes the inline read models.
  const appending =
    inline && options.startEngine !== false ? sqlStore.withInline(inlineProjection(allProjectors, engine.schema)) : sqlStore;
  const store = foldingStore(instrumentedStore(appending, metrics));

  const dataDir = await mkdtemp(join(tmpdir(), 'dss-service-'));
  const config = loadConfig({ DATA_DIR: dataDir, BASE_URL: 'http://service.test', ...UNLIMITED, ...options.domain?.env });
  const domain = options.domain
    ? await openDomainServices({
        config,
        logger,
        db,
        store,
        metrics,
        waitFor: (p, eventTypes) => engine.waitFor(p, { eventTypes }),
        ...(options.domain.mailer ? { mailer: options.domain.mailer } : {}),
        ...(options.domain.now ? { now: options.domain.now } : {}),
      })
    : null;
  const routes = (app: Express) => {
    domain?.routes(app);
    options.routes?.(app);
  };
  const app = createApp({
    config: { baseUrl: 'http://service.test', trustProxy: config.trustProxy },
    logger,
    db: options.readinessDb ? await options.readinessDb(t) : db,
    store,
    engine,
    queue,
    metrics,
    queueNames: options.queueNames ?? [],
    readiness: options.readiness ?? {},
    routes,
  });
  const running: RunningServer = createServer({ app, logger, shutdownTimeoutMs: 2000 });
  const port = await running.listen(options.port ?? 0, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${port}`,
    t,
    db,
    store,
    engine,
    queue,
    metrics,
    domain,
    logs: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
    waitForLog: async (match) => {
      for (let i = 0; i < 100; i++) {
        const found = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find(match);
        if (found) return found;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no such log line in:\n${lines.join('')}`);
    },
    logText: () => lines.join(''),
    close: async () => {
      await running.close();
      await engine.stop();
      await queue.close();
      await domain?.close();
      if (!options.database) await t.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
