import { expect } from 'chai';
import { BullmqJobQueue, SqlJobQueue } from '../../src/workers/queue/index.js';
import { mainBackend, openTestDatabase } from '../support/databases.js';
import { deleteRedisPrefix, uniqueRedisPrefix } from '../support/redis.js';
import { deferred, jobQueueContract, waitFor } from './queue.contract.js';

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

  describe(`the SQL queue ends a job whose worker died during its last attempt (${backend})`, () => {
    it('once its lease lapses the next poll marks it failed, with the reason, and it never runs again', async () => {
      const t = await openTestDatabase(backend);
      const options = { attempts: 1, backoffMs: 20, leaseMs: 200, pollMs: 25 };
      const stuck = deferred();
      const crashed = await SqlJobQueue.open(t.db, options);
      const restarted = await SqlJobQueue.open(t.db, options);
      try {
        let started = false;
        const worker = crashed.process('last-attempt', async () => {
          started = true;
          await stuck.promise;
        });
        await crashed.enqueue('last-attempt', 'job-a', {});
        await waitFor(async () => started);
        await worker.abandon();

        let runs = 0;
        restarted.process('last-attempt', async () => {
          runs++;
        });
        await waitFor(async () => (await restarted.status('last-attempt', 'job-a'))?.state === 'failed');
        expect(await restarted.status('last-attempt', 'job-a')).to.deep.equal({
          state: 'failed',
          lastError: 'the worker stopped during the last attempt (its lease lapsed)',
        });
        expect(runs).to.equal(0);
      } finally {
        stuck.resolve();
        await restarted.close();
        await crashed.close();
        await t.drop();
      }
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
