import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's Prometheus metrics, on a registry of their own: several apps in one process
 * (tests) never share or collide, and nothing registers on prom-client's global registry.
 */
export type Metrics = {
  readonly registry: Registry;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly eventsAppended: Counter<'category' | 'type'>;
  readonly uploadsInFlight: Gauge;
  readonly dbQueries: Counter<'pool' | 'kind'>;
};

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by method, route template (never the raw path) and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    eventsAppended: new Counter({
      name: 'events_appended_total',
      help: 'Events appended to the log by this instance, by stream category and event type',
      labelNames: ['category', 'type'],
      registers: [registry],
    }),
    uploadsInFlight: new Gauge({
      name: 'uploads_in_flight',
      help: 'File uploads this instance is streaming now (at most MAX_UPLOADS_TOTAL)',
      registers: [registry],
    }),
    dbQueries: new Counter({
      name: 'db_queries_total',
      help:
        'Queries this instance sent to PostgreSQL (a simple query of several statements counts once), ' +
        'by pool (requests, projections) and kind (autocommit, transaction, other)',
      labelNames: ['pool', 'kind'],
      registers: [registry],
    }),
  };
}
