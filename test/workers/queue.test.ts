import { BullmqJobQueue, SqlJobQueue } from '../../src/workers/queue/index.js';
import { mainBackend, openTestDatabase } from '../support/databases.js';
import { deleteRedisPrefix, uniqueRedisPrefix } from '../support/redis.js';
import { jobQueueContract } from './queue.contract.js';

/** The embedded queue's contract runs on PGlite always, and on PostgreSQL when DATABASE_URL is set. */
for (const backend of mainBackend === 'postgres' ? (['pglite', 'postgres'] as const) : (['pglite'] as const)) {
  describe(`job queue contract on the SQL queue (${backend})`, () => {
    jobQueueContract(async () => {
      const t = await openTestDatabase(backend);
      return {
        // A short poll so a job enqueued by another instance is found quickly.
        open: (options) => SqlJobQueue.open(t.db, { ...options, pollMs: 25 }),
        dispose: () => t.drop(),
      };
    });
  });
}

const redisUrl = process.env.REDIS_URL;

(redisUrl ? describe : describe.skip)('job queue contract on BullMQ (Redis)', () => {
  jobQueueContract(async () => {
    const url = redisUrl!;
    const prefix = uniqueRedisPrefix();
    return {
      open: async (options) => new BullmqJobQueue(url, { ...options, prefix }),
      dispose: () => deleteRedisPrefix(url, prefix),
    };
  });
});
