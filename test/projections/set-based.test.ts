import { expect } from 'chai';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { logProjector } from '../../src/projections/projector.js';
import { replay } from '../../src/projections/replay.js';
import { ProjectorEventError } from '../../src/projections/stall.js';
import { RecentEvents } from '../../src/events/recent-events.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent, uniqueStream } from '../support/events.js';
import { assertExactlyOnceInStreamOrder, recordedRows, recordingProjector } from '../support/projectors.js';

describe(`set-based projection: a failing onBatch falls back to the per-event handlers (${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;
  let store: SqlEventStore;
  beforeEach(async () => {
    t = await openTestDatabase();
    store = await SqlEventStore.open(t.db);
  });
  afterEach(() => t.drop());

  const counted = (poison?: string) =>
    logProjector({
      name: 'counted',
      version: 1,
      schemaSql: 'CREATE TABLE IF NOT EXISTS counted (event_id uuid PRIMARY KEY)',
      onAny: async (tx, e) => {
        if (e.type === poison) throw new Error('cannot apply');
        await tx.query('INSERT INTO counted (event_id) VALUES ($1)', [e.metadata.eventId]);
      },
      // Writes a row, then fails: the savepoint must take that row back.
      onBatch: async (tx, events) => {
        await tx.query('INSERT INTO counted (event_id) VALUES ($1)', [events[0]!.metadata.eventId]);
        throw new Error('set-based form failed');
      },
    });

  it('the per-event handlers apply the batch, each event once, nothing left of the failed attempt', async () => {
    const stream = uniqueStream('order');
    const events = Array.from({ length: 5 }, (_, i) => newEvent('Placed', { i }));
    await store.appendToStream(stream, events, 'no_stream');
    await replay({ db: t.db, store, projectors: [counted()], batchSize: 2 });
    const rows = await t.db.query<{ event_id: string }>('SELECT event_id::text AS event_id FROM rm.counted ORDER BY 1');
    expect(rows.rows.map((r) => r.event_id)).to.deep.equal(events.map((e) => e.metadata.eventId).sort());
  });

  it("a page one read model cannot apply at once is applied again read model by read model: every other's rows once", async () => {
    const stream = uniqueStream('order');
    const events = Array.from({ length: 5 }, (_, i) => newEvent('Placed', { i }));
    await store.appendToStream(stream, events, 'no_stream');
    await replay({ db: t.db, store, projectors: [recordingProjector('seen_beside'), counted()], batchSize: 2 });
    const ids = events.map((e) => e.metadata.eventId);
    expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_beside'), ids)).to.equal(null);
    const counts = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM rm.counted');
    expect(counts.rows[0]?.n).to.equal(5);
  });

  it('an event no handler can apply is named, as without a set-based form', async () => {
    const stream = uniqueStream('order');
    const poison = newEvent('Poison', {});
    await store.appendToStream(stream, [newEvent('Placed', {}), poison, newEvent('Placed', {})], 'no_stream');
    const failure = await replay({ db: t.db, store, projectors: [counted('Poison')], batchSize: 2 }).catch((e: unknown) => e);
    expect(failure).to.be.instanceOf(ProjectorEventError);
    expect((failure as ProjectorEventError).event.metadata.eventId).to.equal(poison.metadata.eventId);
  });
});

describe('recent events: projectors behind the leader take their page from memory', () => {
  const at = (n: number) => ({ commit: 100n, prepare: BigInt(n) });
  const event = (n: number) => ({ position: at(n) }) as RecordedEvent;
  const page = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => event(from + i));

  it('serves the events right after any position it holds, and nothing it cannot vouch for', () => {
    const recent = new RecentEvents();
    recent.add(at(0), page(1, 5));
    recent.add(at(5), page(6, 8));
    expect(recent.after(at(0), 3)?.map((e) => e.position.prepare)).to.deep.equal([1n, 2n, 3n]);
    expect(recent.after(at(4), 10)?.map((e) => e.position.prepare)).to.deep.equal([5n, 6n, 7n, 8n]);
    // At the end of what it holds, or before it: the database must answer.
    expect(recent.after(at(8), 10)).to.equal(null);
    expect(recent.after({ commit: 99n, prepare: 9n }, 10)).to.equal(null);
  });

  it('a page that does not follow what it holds starts a new stretch: no gap is ever served', () => {
    const recent = new RecentEvents();
    recent.add(at(0), page(1, 5));
    recent.add(at(20), page(21, 22));
    expect(recent.after(at(0), 10)).to.equal(null);
    expect(recent.after(at(20), 10)?.map((e) => e.position.prepare)).to.deep.equal([21n, 22n]);
  });

  it('holds the newest stretch of at most 10,000 events, and forgets the oldest a quarter at a time', () => {
    const recent = new RecentEvents();
    for (let n = 0; n < 10_000; n += 100) recent.add(at(n), page(n + 1, n + 100));
    expect(recent.after(at(0), 1)?.map((e) => e.position.prepare)).to.deep.equal([1n]);
    recent.add(at(10_000), page(10_001, 10_001));
    // Events 1 to 2,501 went: the stretch now starts after 2,501 and still ends at the newest.
    expect(recent.after(at(2_500), 1)).to.equal(null);
    expect(recent.after(at(2_501), 1)?.map((e) => e.position.prepare)).to.deep.equal([2_502n]);
    expect(recent.after(at(10_000), 5)?.map((e) => e.position.prepare)).to.deep.equal([10_001n]);
  });
});
