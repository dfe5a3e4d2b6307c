import { expect } from 'chai';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent, uniqueStream } from '../support/events.js';

/**
 * DESIGN.md: concurrent transactions commit sequence positions out of order. A reader that
 * checkpointed past a later-committing lower position would skip that event forever.
 */
(process.env.DATABASE_URL ? describe : describe.skip)('PostgreSQL global order never skips an event committed later', () => {
  let t: TestDatabase;
  let store: SqlEventStore;
  before(async () => {
    t = await openTestDatabase('postgres');
    store = await SqlEventStore.open(t.db);
  });
  after(() => t.drop());

  it('holds back events behind an open transaction until it commits, then reads both in commit order', async () => {
    const slow = uniqueStream();
    const fast = uniqueStream();
    let releaseSlow!: () => void;
    const gate = new Promise<void>((r) => {
      releaseSlow = r;
    });
    let slowInserted!: () => void;
    const inserted = new Promise<void>((r) => {
      slowInserted = r;
    });

    // The slow writer takes the lower position and keeps its transaction open.
    const slowTx = t.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata)
         VALUES ($1, 0, gen_random_uuid(), 'Slow', '{}', '{}')`,
        [slow],
      );
      slowInserted();
      await gate;
    });
    await inserted;
    const fastResult = await store.appendToStream(fast, [newEvent('Fast')], 'no_stream');

    const whileOpen = await store.readAll();
    expect(whileOpen.map((e) => e.type)).to.not.include('Fast');

    releaseSlow();
    await slowTx;
    const after = await store.readAll();
    expect(after.map((e) => e.type)).to.deep.equal(['Slow', 'Fast']);
    expect(after[1]!.position).to.deep.equal(fastResult.position);
  });
});
