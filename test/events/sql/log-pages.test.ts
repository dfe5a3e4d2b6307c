import { expect } from 'chai';
import { PostgresDb } from '../../../src/db/postgres-db.js';
import { SqlEventStore } from '../../../src/events/sql/sql-event-store.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../../support/databases.js';
import { newEvent, uniqueStream } from '../../support/events.js';

describe(`pages of the log (${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;
  let store: SqlEventStore;
  before(async () => {
    t = await openTestDatabase();
    store = await SqlEventStore.open(t.db);
  });
  after(() => t.drop());

  it('a page size that is not a positive whole number is refused before anything is sent', async () => {
    for (const maxCount of [0, -1, 2.5, Number.NaN]) {
      let refused: unknown = null;
      await store.readAll({ maxCount }).catch((e: unknown) => (refused = e));
      expect(refused, String(maxCount)).to.be.instanceOf(RangeError);
    }
  });

  it('a lag gauge peeking one event and a follower reading pages of 500, taking turns, are planned a few times, not at every read', async function () {
    if (!t.url) return this.skip(); // PostgreSQL's cached plans: PGlite runs the statements unnamed
    // A log of some size: over a few thousand events, the generic plan of a parameter limit costs more than a peek's.
    for (let s = 0; s < 300; s++) {
      await store.appendToStream(
        uniqueStream('page'),
        Array.from({ length: 100 }, (_, i) => newEvent('Placed', { i })),
        'no_stream',
      );
    }
    // One connection, so every read and the look at its prepared statements share it.
    const db = new PostgresDb(t.url, { max: 1 });
    try {
      const reader = await SqlEventStore.open(db);
      const from = (await reader.readAll({ maxCount: 1 }))[0]!.position;
      for (let round = 0; round < 12; round++) {
        expect(await reader.readAll({ after: from, maxCount: 1 })).to.have.length(1);
        expect(await reader.readAll({ after: from, maxCount: 500 })).to.have.length(500);
      }
      const reads = (
        await db.query<{ generic: number; custom: number }>(
          `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements
           WHERE statement LIKE '%ORDER BY transaction_id, position LIMIT%' ORDER BY statement`,
        )
      ).rows;
      // With the page size a parameter the two shared one statement, which PostgreSQL planned at every one of its 25 runs.
      expect(reads.reduce((planned, r) => planned + r.custom, 0)).to.be.at.most(10);
      expect(reads).to.have.length(2);
      for (const r of reads) expect(r.generic).to.be.at.least(7);
    } finally {
      await db.close();
    }
  });
});
