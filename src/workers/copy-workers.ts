import type { Copies } from '../copies/index.js';
import { parseId } from '../ids.js';
import type { ProposalService } from '../proposals/proposal-service.js';
import type { SqlDb } from '../db/sql.js';
import type { EventContext, JsonObject } from '../events/envelope.js';
import { positionFrom } from '../events/position.js';
import type { EventStore } from '../events/store.js';
import type { CommandDeps } from '../commands/shell.js';
import type { Logger } from '../logger.js';
import type { JobQueue } from './queue/queue.js';
import type { SharedLogReads } from '../events/recent-events.js';
import { ReactorRunner, runTogether, type Workers } from './reactor-runner.js';
import { AUTO_KEEP_QUEUE, autoKeepOnNewVersions, DRAIN_QUEUE, drainOnKeyWarmed, type GrantedAmong } from './reactors/copy-reactors.js';

export const COPY_QUEUES: readonly string[] = [DRAIN_QUEUE, AUTO_KEEP_QUEUE];

/**
 * Drains at once on an instance: one organization's drain holds up no other's sign-in. Two of one
 * organization keep each version once, as drains on two instances do (the chain's decider).
 */
const DRAIN_CONCURRENCY = 4;

/** What the copy workers run of the copies feature: the automatic keep and where a resource is granted, and the drain. */
export type CopyWork = Pick<Copies['keeping'], 'keepAutomatically' | 'grantsOf'> & {
  /** Which of these resource ids, as a page of the log names them, are granted on some slot now. */
  readonly grantedAmong: (resourceIds: readonly string[]) => Promise<Set<string>>;
} & Pick<Copies['drains'], 'drainOrganization'>;

export const copyWorkOf = (copies: Copies): CopyWork => ({
  keepAutomatically: (...a) => copies.keeping.keepAutomatically(...a),
  grantsOf: (resourceId) => copies.keeping.grantsOf(resourceId),
  // The log's ids are an edge too: one that is no UUID is granted nowhere, and casting it would fail the page for ever.
  grantedAmong: (resourceIds) => copies.keeping.grantedAmong(resourceIds.flatMap((id) => parseId<'resource'>(id) ?? [])),
  drainOrganization: (...a) => copies.drains.drainOrganization(...a),
});

export type CopyWorkerDeps = {
  readonly db: SqlDb;
  readonly store: Pick<EventStore, 'readAll' | 'onAppended'>;
  readonly queue: JobQueue;
  readonly copies: CopyWork;
  readonly proposals: Pick<ProposalService, 'notice'>;
  readonly logger: Logger;
  readonly now: () => Date;
  /** Read-your-writes for jobs: the read models a job reads include the event that caused it. */
  readonly waitFor: CommandDeps['waitFor'];
  readonly reactorPollMs?: number;
  /** The instance's one reader of the log (ReactorRunnerOptions.reads). */
  readonly reads?: SharedLogReads;
};

export type CopyWorkers = Workers;

/** The copy reactors and the workers of their two queues, started and stopped with the service. */
export async function startCopyWorkers(deps: CopyWorkerDeps): Promise<CopyWorkers> {
  const system = (job: string, payload: JsonObject): EventContext => ({
    occurredAt: deps.now().toISOString(),
    actor: { kind: 'system', id: job },
    correlationId: typeof payload.correlationId === 'string' ? payload.correlationId : job,
    causationId: typeof payload.causationId === 'string' ? payload.causationId : null,
  });
  const caughtUp = async (payload: JsonObject) => {
    const at = typeof payload.position === 'string' ? positionFrom(payload.position) : null;
    if (at && typeof payload.eventType === 'string') await deps.waitFor(at, [payload.eventType]);
  };
  const workers = [
    deps.queue.process(
      DRAIN_QUEUE,
      async (job) => {
        await caughtUp(job.payload);
        const { organizationId } = job.payload;
        if (typeof organizationId !== 'string') throw new Error(`drain job ${job.id} names no organization`);
        const materialized = await deps.copies.drainOrganization(organizationId, system(`job:${job.id}`, job.payload));
        deps.logger.info({ job: job.id, organizationId, materialized }, 'drained pending keeps');
      },
      { concurrency: DRAIN_CONCURRENCY },
    ),
    deps.queue.process(AUTO_KEEP_QUEUE, async (job) => {
      await caughtUp(job.payload);
      const context = system(`job:${job.id}`, job.payload);
      const { requestId, slotId, resourceId, version, causationId } = job.payload;
      if (typeof requestId === 'string' && typeof slotId === 'string') {
        // A job's payload is an edge too: its ids are parsed here, once.
        const [request, slot] = [parseId<'request'>(requestId), parseId<'slot'>(slotId)];
        if (request && slot) await deps.copies.keepAutomatically(request, slot, context);
        return;
      }
      if (typeof resourceId !== 'string' || typeof version !== 'number') return;
      for (const t of await deps.copies.grantsOf(resourceId)) {
        await deps.copies.keepAutomatically(t.requestId, t.slotId, context);
        await deps.proposals.notice(
          t.requestId,
          t.slotId,
          resourceId,
          version,
          typeof causationId === 'string' ? causationId : job.id,
          context,
        );
      }
    }),
  ];
  const grantedAmong: GrantedAmong = async (resourceIds, upTo) => {
    // Grants come from SlotGranted alone: once its read model holds the page, no grant made before
    // the page's versions is missed.
    await deps.waitFor(upTo, ['SlotGranted']);
    return deps.copies.grantedAmong(resourceIds);
  };
  const runner = new ReactorRunner({
    db: deps.db,
    store: deps.store,
    reactors: [drainOnKeyWarmed(deps.queue), autoKeepOnNewVersions(deps.queue, grantedAmong)],
    logger: deps.logger,
    reads: deps.reads,
    ...(deps.reactorPollMs === undefined ? {} : { idlePollMs: deps.reactorPollMs }),
  });
  return runTogether(runner, workers);
}
