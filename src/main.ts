import { createApp } from './api/app.js';
import { createServer, DEFAULT_SHUTDOWN_TIMEOUT_MS, type RunningServer } from './api/server.js';
import { openBackends } from './backends.js';
import { openDomainServices } from './domain-services.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { instrumentedStore } from './observability/instrumented-store.js';
import { createMetrics } from './observability/metrics.js';
import { SqlEventStore } from './events/sql/sql-event-store.js';
import { SharedLogReads } from './events/recent-events.js';
import { installAnalyticsViews } from './projections/analytics/analytics.js';
import { allProjectors, ProjectionEngine } from './projections/index.js';
import { inlineProjection } from './projections/inline.js';
import { COPY_QUEUES, copyWorkOf, startCopyWorkers } from './workers/copy-workers.js';
import { LogCheckpointer } from './workers/log-checkpointer.js';
import { startWebhookWorkers, WEBHOOK_QUEUES } from './workers/webhook-workers.js';
import { startConsentReceiptWorkers } from './workers/consent-receipt-workers.js';
import { missingV8Flags } from './v8-tuning.js';
import { openJobQueue } from './workers/queue/open-queue.js';
import { foldingStore } from './commands/stream-folds.js';

/** Queues the reactors run; /metrics reports their depth and /readyz checks them. */
const WATCHED_QUEUES = [...COPY_QUEUES, ...WEBHOOK_QUEUES];

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
}

async function main(): Promise<void> {
  const config = configOrExit();
  const logger = createLogger(config.logLevel);
  const missing = missingV8Flags();
  if (missing.length > 0)
    logger.warn({ flags: missing }, "started without the service's V8 flags, which go on node's command line as npm start puts them");
  const metrics = createMetrics();
  const backends = await openBackends(config, metrics);
  const queue = await openJobQueue(
    { redisUrl: config.redisUrl ?? undefined, db: backends.db },
    { onError: (err) => logger.error({ err }, 'job queue error') },
  );
  const inline = backends.store instanceof SqlEventStore && config.projections === 'inline' ? backends.store : null;
  // One reader of the log for every loop of this instance: woken by one append, they share its read.
  const reads = new SharedLogReads(backends.store);
  const engine = new ProjectionEngine({
    // Inline, projectors write in the commands' own transactions; async, on their own pool.
    db: inline ? backends.db : backends.projectionsDb,
    // The store itself, not the append-counting wrapper: the engine only reads, and a rebuild at start
    // (a projector's version changed) must read the log through its own transaction on PGlite's one
    // connection, which replay can do only with the SQL store in hand.
    store: backends.store,
    projectors: allProjectors,
    logger,
    reads,
    // With the log in the read models' database a command commits its rows with its events (docs/decisions.md, "Read models").
    ...(inline ? { inline } : {}),
  });
  await engine.start();
  // Commands append through a store that writes the read models switched inline above.
  const appending = inline ? inline.withInline(inlineProjection(allProjectors, engine.schema, logger)) : backends.store;
  // Commands read through the fold cache (docs/decisions.md, "Event store"); every append is counted.
  const store = foldingStore(instrumentedStore(appending, metrics));
  await installAnalyticsViews(backends.db, engine.schema);

  const domain = await openDomainServices({
    config,
    logger,
    db: backends.db,
    store,
    metrics,
    waitFor: (p, eventTypes) => engine.waitFor(p, { eventTypes }),
  });

  const workers = await startCopyWorkers({
    db: backends.db,
    store,
    queue,
    copies: copyWorkOf(domain.copies),
    proposals: domain.proposals,
    logger,
    now: () => new Date(),
    waitFor: (p, eventTypes) => engine.waitFor(p, { eventTypes }),
    reads,
  });

  // Contract §12: the feed's events delivered to the organizations' webhooks, through the same queue.
  const webhookWorkers = await startWebhookWorkers({
    db: backends.db,
    store,
    queue,
    deliveries: domain.webhooks.deliveries(queue),
    logger,
    feedCaughtUp: (p) => engine.waitFor(p),
    reads,
  });

  // Contract §14: a receipt for every consent transition, issued from the log.
  const receiptWorkers = await startConsentReceiptWorkers({ db: backends.db, store, receipts: domain.consentReceipts, logger, reads });

  const checkpointer = new LogCheckpointer({ db: backends.db, store, every: config.logCheckpointEvery, logger, reads });
  await checkpointer.start();

  const app = createApp({
    config,
    logger,
    db: backends.db,
    store,
    engine,
    queue,
    queueNames: WATCHED_QUEUES,
    metrics,
    routes: domain.routes,
  });
  const service = createServer({
    app,
    logger,
    shutdownTimeoutMs: DEFAULT_SHUTDOWN_TIMEOUT_MS,
    // Reactors and workers first (their jobs still need the rest), then the engine (it drains its
    // batch), then the queue (it may use the database), then mail and the pools.
    onClose: [
      () => workers.stop(),
      () => webhookWorkers.stop(),
      () => receiptWorkers.stop(),
      () => checkpointer.stop(),
      () => engine.stop(),
      () => queue.close(),
      () => domain.close(),
      () => backends.close(),
    ],
  });
  const port = await service.listen(config.port);
  // The port it binds and the BASE_URL it serves: the host a client uses is the proxy's or BASE_URL's, not necessarily localhost.
  logger.info(
    { port, baseUrl: config.baseUrl, events: backends.store.kind, readModels: backends.db.kind },
    `listening on port ${port}, serving ${config.baseUrl}`,
  );
  exitOnSignals(service, logger);
}

/**
 * SIGTERM or SIGINT: drain and exit 0. A second signal, or close hooks that hang past their
 * own deadline, exit 1 at once: an operator's repeated Ctrl-C means now.
 */
function exitOnSignals(service: RunningServer, logger: Logger): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal during shutdown; exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, DEFAULT_SHUTDOWN_TIMEOUT_MS + 15_000).unref();
    service.close().then(
      ({ forced }) => {
        logger.info({ forced }, 'shutdown complete');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

main().catch((e: unknown) => {
  process.stderr.write(`failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
