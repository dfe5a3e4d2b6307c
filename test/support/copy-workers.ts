import { randomBytes } from 'node:crypto';
import { createLogger } from '../../src/logger.js';
import { copyWorkOf, startCopyWorkers, type CopyWorkerDeps, type CopyWorkers } from '../../src/workers/copy-workers.js';
import { openJobQueue } from '../../src/workers/queue/open-queue.js';
import type { JobQueue } from '../../src/workers/queue/queue.js';
import type { TestService } from '../api/support/service.js';

/**
 * The service's copy workers beside a test service: its reactors, and a queue of their own on
 * Redis when REDIS_URL is set (under a prefix no other suite uses), else on the test database.
 */
export async function openWorkerQueue(service: TestService): Promise<JobQueue> {
  return openJobQueue(
    { redisUrl: process.env.REDIS_URL, db: service.db },
    { prefix: `t${randomBytes(4).toString('hex')}`, backoffMs: 50, leaseMs: 1000, onError: () => undefined },
  );
}

export function startWorkers(
  service: TestService,
  queue: JobQueue,
  copies: CopyWorkerDeps['copies'] = copyWorkOf(service.domain!.copies),
  waitFor: CopyWorkerDeps['waitFor'] = (p, eventTypes) => service.engine.waitFor(p, { eventTypes }),
): Promise<CopyWorkers> {
  return startCopyWorkers({
    db: service.db,
    store: service.store,
    queue,
    copies,
    proposals: service.domain!.proposals,
    logger: createLogger(process.env.DEBUG_WORKERS ? 'debug' : 'silent'),
    now: () => new Date(),
    waitFor,
    reactorPollMs: 50,
  });
}
