import { expect } from 'chai';
import type { SqlDb } from '../../src/db/sql.js';
import { BullmqJobQueue, openJobQueue, SqlJobQueue } from '../../src/workers/queue/index.js';

/** Answers every statement with no rows: choosing a queue must not need a real database. */
function silentDb(): SqlDb & { readonly executed: string[] } {
  const executed: string[] = [];
  const query = async () => ({ rows: [], rowCount: 0 });
  return {
    kind: 'pglite',
    executed,
    query,
    transaction: (fn) => fn({ query }),
    exec: async (sql) => {
      executed.push(sql);
    },
    tryLease: async () => null,
    listen: async () => async () => undefined,
    listenedElsewhere: async () => false,
    ping: async () => true,
    close: async () => undefined,
  };
}

describe('choosing the job queue (design: queues and reactors)', () => {
  it('keeps jobs in the service database, creating its table, when no Redis is configured', async () => {
    const db = silentDb();
    const queue = await openJobQueue({ db, redisUrl: undefined });
    expect(queue).to.be.instanceOf(SqlJobQueue);
    expect(db.executed.join('\n')).to.include('CREATE TABLE IF NOT EXISTS queue.jobs');
    await queue.close();
  });

  it('uses BullMQ when REDIS_URL is set, and leaves the database alone', async () => {
    const db = silentDb();
    // No command is sent until the queue is used, so no Redis needs to be running.
    const queue = await openJobQueue({ db, redisUrl: 'redis://127.0.0.1:1' });
    expect(queue).to.be.instanceOf(BullmqJobQueue);
    expect(db.executed).to.deep.equal([]);
    await queue.close();
  });
});
