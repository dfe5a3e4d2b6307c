import type { SqlDb } from '../../db/sql.js';
import { BullmqJobQueue, type BullmqQueueOptions } from './bullmq-queue.js';
import type { JobQueue } from './queue.js';
import { SqlJobQueue, type SqlQueueOptions } from './sql-queue.js';

/** BullMQ when the deployment has a Redis, otherwise the queue table in the service's database. */
export async function openJobQueue(
  config: { readonly redisUrl?: string | undefined; readonly db: SqlDb },
  options: BullmqQueueOptions & SqlQueueOptions = {},
): Promise<JobQueue> {
  return config.redisUrl ? new BullmqJobQueue(config.redisUrl, options) : SqlJobQueue.open(config.db, options);
}
