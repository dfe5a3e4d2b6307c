import type { SqlDb } from '../db/sql.js';
import type { Position } from '../events/position.js';
import type { EventStore } from '../events/store.js';
import { parseId } from '../ids.js';
import type { Logger } from '../logger.js';
import { WEBHOOK_QUEUE, type Deliveries } from '../webhooks/index.js';
import type { JobQueue } from './queue/queue.js';
import type { SharedLogReads } from '../events/recent-events.js';
import { ReactorRunner, runTogether, type Workers } from './reactor-runner.js';
import { deliverFeedEvents, deliverOnRequest } from './reactors/webhook-reactors.js';

export const WEBHOOK_QUEUES: readonly string[] = [WEBHOOK_QUEUE];

/** Attempts at once on an instance: one endpoint that takes its whole timeout holds up no other. */
const CONCURRENCY = 16;

export type WebhookWorkerDeps = {
  readonly db: SqlDb;
  readonly store: Pick<EventStore, 'readAll' | 'onAppended'>;
  readonly queue: JobQueue;
  /** The delivery side of the webhooks, on `queue` (Webhooks.deliveries). */
  readonly deliveries: Deliveries;
  readonly logger: Logger;
  /** Resolves once the events feed, which follows the log on its own, holds the event at `position`. */
  readonly feedCaughtUp: (position: Position) => Promise<void>;
  readonly reactorPollMs?: number;
  /** The instance's one reader of the log (ReactorRunnerOptions.reads). */
  readonly reads?: SharedLogReads;
};

/** The webhook reactors and the workers of the delivery queue, started and stopped with the service. */
export async function startWebhookWorkers(deps: WebhookWorkerDeps): Promise<Workers> {
  const worker = deps.queue.process(
    WEBHOOK_QUEUE,
    async (job) => {
      const { webhookId, eventId, step } = job.payload;
      // A job's payload is an edge too: its ids are parsed here, once.
      const id = <K extends string>(value: unknown) => (typeof value === 'string' ? parseId<K>(value) : null);
      const [webhook, event] = [id<'webhook'>(webhookId), id<'feed-event'>(eventId)];
      if (!webhook || !event || !(step === null || (typeof step === 'number' && Number.isInteger(step) && step >= 0)))
        throw new Error(`webhook job ${job.id} names no delivery`);
      await deps.deliveries.attempt({ webhookId: webhook, eventId: event, step });
    },
    { concurrency: CONCURRENCY },
  );
  const runner = new ReactorRunner({
    db: deps.db,
    store: deps.store,
    reactors: [deliverFeedEvents(deps.deliveries, deps.feedCaughtUp), deliverOnRequest(deps.deliveries)],
    logger: deps.logger,
    reads: deps.reads,
    ...(deps.reactorPollMs === undefined ? {} : { idlePollMs: deps.reactorPollMs }),
  });
  return runTogether(runner, [worker]);
}
