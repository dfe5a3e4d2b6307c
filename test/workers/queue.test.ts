import { expect } from 'chai';
import { BullmqJobQueue, SqlJobQueue } from '../../src/workers/queue/index.js';
import { claim } from '../../src/workers/queue/queries.js';
import type { SqlDb } from '../../src/db/sql.js';
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

  describe(`the SQL queue after a burst of jobs (${backend})`, () => {
    it('a poll reads about as much of the table as on a queue that never ran a job', async () => {
      const t = await openTestDatabase(backend);
      const queue = await SqlJobQueue.open(t.db, { attempts: 1, backoffMs: 20, leaseMs: 5_000, pollMs: 25 });
      try {
        // No vacuum in between, as autovacuum may not come for a long while: only the polls pass over what the jobs left.
        if (backend === 'postgres') await t.db.exec('ALTER TABLE queue.jobs SET (autovacuum_enabled = false)');
        let runs = 0;
        queue.process(
          'burst',
          async () => {
            runs++;
          },
          { concurrency: 50 },
        );
        for (let i = 0; i < BURST; i += 100) {
          await Promise.all(Array.from({ length: 100 }, (_, j) => queue.enqueue('burst', `job-${i + j}`, {})));
        }
        await waitFor(async () => runs === BURST, 30_000);
        // Closed before the probes, whose jobs its worker would otherwise take.
        await queue.close();

        const quiet = await pollCost(t.db, 'quiet');
        // The first poll after the burst may read what it left; the next ones must not.
        await pollCost(t.db, 'burst');
        // A poll that reads the burst's dead row versions again reads about twice as many: 44-52 against 16.
        expect(await pollCost(t.db, 'burst')).to.be.at.most(quiet + 20);
      } finally {
        await queue.close();
        await t.drop();
      }
    });
  });
}

/** Every job of a burst goes from waiting to active to completed, leaving a dead row version at each step. */
const BURST = 2_000;

/** The buffers a poll of `queueName` reads, with one job due on it (which the poll claims). */
async function pollCost(db: SqlDb, queueName: string): Promise<number> {
  await db.query(
    `INSERT INTO queue.jobs (queue_name, job_id, payload, max_attempts, backoff_ms) VALUES ($1, gen_random_uuid()::text, '{}', 1, 0)`,
    [queueName],
  );
  const plan = await db.query<{ 'QUERY PLAN': [{ Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }] }>(
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${claim}`,
    [queueName, 10, 60_000],
  );
  const top = plan.rows[0]!['QUERY PLAN'][0].Plan;
  return top['Shared Hit Blocks'] + top['Shared Read Blocks'];
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
