import { Gauge } from 'prom-client';
import { formatPosition } from '../events/position.js';
import type { EventStore } from '../events/store.js';
import type { JobQueue, QueueDepth } from '../workers/queue/queue.js';
import type { Metrics } from './metrics.js';
import { projectionLag, type ProjectionStatusSource } from './projection-lag.js';

export type StateSources = {
  readonly engine: ProjectionStatusSource;
  readonly store: Pick<EventStore, 'readAll'>;
  readonly queue: Pick<JobQueue, 'depth'>;
  readonly queueNames: readonly string[];
  /** A store that does not answer must not fail the scrape: its series go missing instead. */
  readonly onError: (error: unknown, source: string) => void;
};

const QUEUE_STATES: readonly (keyof QueueDepth)[] = ['waiting', 'active', 'delayed', 'failed'];

/** Gauges read at scrape time from the checkpoints and the queue, so they are never stale. */
export function registerStateGauges(metrics: Pick<Metrics, 'registry'>, sources: StateSources): void {
  new Gauge({
    name: 'projection_lag_seconds',
    help: 'Age of the oldest event a projector has not applied yet (0 when caught up)',
    labelNames: ['projector'],
    registers: [metrics.registry],
    async collect() {
      this.reset();
      try {
        for (const { projector, lagSeconds } of await projectionLag(sources.engine, sources.store)) this.set({ projector }, lagSeconds);
      } catch (error) {
        sources.onError(error, 'projection_lag_seconds');
      }
    },
  });
  new Gauge({
    name: 'projection_stalled',
    help: '1 while a projector is stopped on an event it cannot apply: which projector, at which position, with which error class',
    labelNames: ['projector', 'position', 'error_class'],
    registers: [metrics.registry],
    async collect() {
      // One series per stalled projector at most: the label set is bounded by the projectors.
      this.reset();
      try {
        for (const { projector, stalled } of await sources.engine.status()) {
          if (stalled) this.set({ projector, position: formatPosition(stalled.position), error_class: stalled.errorClass }, 1);
        }
      } catch (error) {
        sources.onError(error, 'projection_stalled');
      }
    },
  });
  new Gauge({
    name: 'queue_jobs',
    help: 'Jobs per queue and state',
    labelNames: ['queue', 'state'],
    registers: [metrics.registry],
    async collect() {
      this.reset();
      await Promise.all(
        sources.queueNames.map(async (queue) => {
          try {
            const depth = await sources.queue.depth(queue);
            for (const state of QUEUE_STATES) this.set({ queue, state }, depth[state]);
          } catch (error) {
            sources.onError(error, 'queue_jobs');
          }
        }),
      );
    },
  });
}
