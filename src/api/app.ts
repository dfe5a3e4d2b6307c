import express, { type Express } from 'express';
import type { Config } from '../config.js';
import type { SqlDb } from '../db/sql.js';
import type { EventStore } from '../events/store.js';
import type { Logger } from '../logger.js';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import type { ProjectionStatusSource } from '../observability/projection-lag.js';
import type { ReadinessOptions } from '../observability/readiness.js';
import { registerStateGauges } from '../observability/state-gauges.js';
import type { ProjectionEngine } from '../projections/engine.js';
import type { JobQueue } from '../workers/queue/queue.js';
import { problemErrorHandler } from './middleware/error-handler.js';
import { httpLogger } from './middleware/http-logger.js';
import { httpMetrics } from './middleware/http-metrics.js';
import { notFound } from './middleware/not-found.js';
import { requestIds } from './middleware/request-ids.js';
import { captureRouteTemplate } from './middleware/route-template.js';
import { setProblemTypeBase } from './problems.js';
import { opsRoutes } from './routes/ops.js';

export type AppDeps = {
  /** trustProxy: TRUST_PROXY; without it the socket's peer is the client (X-Forwarded-For ignored). */
  readonly config: Pick<Config, 'baseUrl'> & Partial<Pick<Config, 'trustProxy' | 'production' | 'metricsToken'>>;
  readonly logger: Logger;
  readonly db: SqlDb;
  /** Commands append through this one; main passes it instrumented (instrumentedStore). */
  readonly store: EventStore;
  readonly engine: ProjectionStatusSource & Pick<ProjectionEngine, 'waitFor'>;
  readonly queue: JobQueue;
  /** Queues watched by /metrics (depth per state) and /readyz. */
  readonly queueNames?: readonly string[];
  /** A registry of this app's own; created when not given. */
  readonly metrics?: Metrics;
  readonly readiness?: ReadinessOptions;
  /** Mounts routes after the built-in ones and before the 404 and error handlers. */
  readonly routes?: (app: Express) => void;
};

/** The HTTP surface: ids, logging and metrics first, then the routes, then problem+json for the rest. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // req.ip, the address per-client limits count under, follows this (README: TRUST_PROXY).
  const trustProxy = deps.config.trustProxy ?? false;
  app.set('trust proxy', typeof trustProxy === 'object' ? [...trustProxy] : trustProxy);
  setProblemTypeBase(app.locals, deps.config.baseUrl);

  const metrics = deps.metrics ?? createMetrics();
  const queueNames = deps.queueNames ?? [];
  registerStateGauges(metrics, {
    engine: deps.engine,
    store: deps.store,
    queue: deps.queue,
    queueNames,
    onError: (err, source) => deps.logger.warn({ err, source }, 'metric source unavailable'),
  });

  app.use(requestIds());
  app.use(captureRouteTemplate());
  app.use(httpLogger(deps.logger));
  app.use(httpMetrics(metrics));

  app.use(
    opsRoutes({
      sources: { db: deps.db, store: deps.store, engine: deps.engine, queue: deps.queue, queueNames },
      readiness: deps.readiness ?? {},
      metrics,
      metricsAccess: { token: deps.config.metricsToken ?? null, production: deps.config.production ?? false },
      logger: deps.logger,
    }),
  );
  deps.routes?.(app);

  app.use(notFound());
  app.use(problemErrorHandler());
  return app;
}
