import { expect } from 'chai';
import { WrongExpectedVersionError } from '../../../src/events/errors.js';
import { GroupCommit } from '../../../src/events/sql/group-commit.js';
import { SqlEventStore } from '../../../src/events/sql/sql-event-store.js';
import type { ProjectionEngine } from '../../../src/projections/engine.js';
import { logProjector } from '../../../src/projections/projector.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../../support/databases.js';
import { newEvent, uniqueStream } from '../../support/events.js';
import {
  assertExactlyOnceInStreamOrder,
  batchedRows,
  batchedRowsProjector,
  recordedRows,
  recordingProjector,
  startInline,
} from '../../support/projectors.js';

describe('group commit: how batches form', () => {
  /** A queue whose write takes a timer's turn and records each batch's keys. */
  const recordingQueue = (maxInFlight: number) => {
    const batches: string[][] = [];
    const queue = new GroupCommit<{ key: string }, string>(
      async (items) => {
        batches.push(items.map((i) => i.key));
        await new Promise((resolve) => setTimeout(resolve, 1));
        return items.map((i) => i.key);
      },
      { maxInFlight, maxBatch: 64 },
    );
    return { batches, queue };
  };

  it('writers answered together come back as one batch: 8 writers over 2 slots write 4 at a time, round after round', async () => {
    const { batches, queue } = recordingQueue(2);
    const writer = async (w: number) => {
      for (let round = 0; round < 10; round++) await queue.submit({ key: `w${w}` });
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
    expect(batches.map((b) => b.length)).to.deep.equal(Array.from({ length: 20 }, () => 4));
  });

  it('appends submitted together are spread over the free slots; one alone goes alone', async () => {
    const { batches, queue } = recordingQueue(8);
    await Promise.all(['a', 'b', 'c'].map((key) => queue.submit({ key })));
    await queue.submit({ key: 'd' });
    expect(batches).to.deep.equal([['a'], ['b'], ['c'], ['d']]);
  });

  it('a stream is never twice in one batch: its second append waits for the first, the other stream goes with the first', async () => {
    const { batches, queue } = recordingQueue(2);
    await Promise.all(['s', 's', 't'].map((key) => queue.submit({ key })));
    expect(batches).to.deep.equal([['s', 't'], ['s']]);
  });
});

describe(`group commit: appends that arrive together are written together, each answered alone (${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;
  let store: SqlEventStore;
  let engine: ProjectionEngine | null = null;

  beforeEach(async () => {
    t = await openTestDatabase();
    store = await SqlEventStore.open(t.db);
  });
  afterEach(async () => {
    await engine?.stop();
    engine = null;
    await t.drop();
  });

  const transactionsOf = async (streams: readonly string[]) =>
    Number(
      (
        await t.db.query<{ n: string }>('SELECT count(DISTINCT transaction_id)::text AS n FROM es.events WHERE stream_id = ANY($1)', [
          streams,
        ])
      ).rows[0]!.n,
    );

  /**
   * `count` appends at once, each to a new stream, the one at `poison` a Poison event: it alone is
   * refused and its stream stays empty. Answers the event ids of the others, which all land.
   */
  const appendsWithPoisonAt = async (count: number, poison: number): Promise<string[]> => {
    const streams = Array.from({ length: count }, () => uniqueStream('poisoned'));
    const events = streams.map((_, i) => (i === poison ? newEvent('Poison', {}) : newEvent('Placed', { i })));
    const settled = await Promise.allSettled(streams.map((s, i) => store.appendToStream(s, [events[i]!], 'no_stream')));
    expect(settled.map((r) => r.status)).to.deep.equal(streams.map((_, i) => (i === poison ? 'rejected' : 'fulfilled')));
    expect(await store.readStream(streams[poison]!)).to.deep.equal([]);
    return events.filter((_, i) => i !== poison).map((e) => e.metadata.eventId);
  };

  it('64 appends at once to 64 new streams all land, in fewer commits than appends, each stream in order in the log', async () => {
    const streams = Array.from({ length: 64 }, () => uniqueStream('batch'));
    const results = await Promise.all(
      streams.map((s, i) => store.appendToStream(s, [newEvent('A', { i }), newEvent('B', { i })], 'no_stream')),
    );
    expect(results.map((r) => r.nextExpectedRevision)).to.deep.equal(streams.map(() => 1));
    for (const s of streams) expect((await store.readStream(s)).map((e) => e.type)).to.deep.equal(['A', 'B']);
    expect(await transactionsOf(streams)).to.be.lessThan(streams.length);
    // The global order holds each stream's revisions in order, and each answer's position is its last event's.
    const all = (await store.readAll({ maxCount: 1000 })).filter((e) => streams.includes(e.streamId));
    for (const s of streams) expect(all.filter((e) => e.streamId === s).map((e) => e.revision)).to.deep.equal([0, 1]);
    results.forEach((r, i) => {
      const last = all.find((e) => e.streamId === streams[i] && e.revision === 1)!;
      expect(r.position).to.deep.equal(last.position);
    });
  });

  it('an append whose head moved fails alone with a version conflict; the others of its batch land', async () => {
    const moved = uniqueStream('moved');
    await store.appendToStream(moved, [newEvent('A', {})], 'no_stream');
    await store.readStream(moved); // this store now knows the head at revision 0
    const other = await SqlEventStore.open(t.db);
    await other.appendToStream(moved, [newEvent('B', {})], 0);

    const fresh = Array.from({ length: 8 }, () => uniqueStream('fresh'));
    // Nine at once over two slots: the conflict is written in the first batch, with four others.
    const appends = fresh.map((s) => () => store.appendToStream(s, [newEvent('A', {})], 'no_stream'));
    appends.splice(2, 0, () => store.appendToStream(moved, [newEvent('C', {})], 0));
    const settled = await Promise.allSettled(appends.map((append) => append()));
    const [conflict] = settled.splice(2, 1);
    const rest = settled;
    expect(conflict!.status).to.equal('rejected');
    const error = (conflict as PromiseRejectedResult).reason as WrongExpectedVersionError;
    expect(error).to.be.instanceOf(WrongExpectedVersionError);
    expect(error.actual).to.equal(1);
    expect(rest.every((r) => r.status === 'fulfilled')).to.equal(true);
    expect((await store.readStream(moved)).map((e) => e.type)).to.deep.equal(['A', 'B']);
  });

  it('with inline read models, appends that arrive together share a commit: sixteen at once take one transaction per slot', async () => {
    const seen = recordingProjector('seen_shared');
    ({ engine, store } = await startInline(t.db, store, [seen], { idlePollMs: 20 }));

    const streams = Array.from({ length: 16 }, () => uniqueStream('shared'));
    const events = streams.map((_, i) => newEvent('Placed', { i }));
    await Promise.all(streams.map((s, i) => store.appendToStream(s, [events[i]!], 'no_stream')));
    expect(await transactionsOf(streams)).to.equal(2);
    const landed = events.map((e) => e.metadata.eventId);
    expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_shared'), landed)).to.equal(null);
  });

  it("with inline read models, a batch of appends writes a read model's rows in its set-based statements, not event by event", async () => {
    ({ engine, store } = await startInline(t.db, store, [batchedRowsProjector('batched_rows')], { idlePollMs: 20 }));

    // Sixteen at once: two batches of eight, one per slot.
    const streams = Array.from({ length: 16 }, () => uniqueStream('batched'));
    const events = streams.map((_, i) => newEvent('Placed', { i }));
    await Promise.all(streams.map((s, i) => store.appendToStream(s, [events[i]!], 'no_stream')));
    const ids = events.map((e) => e.metadata.eventId).sort();
    expect(await batchedRows(t.db, 'batched_rows')).to.deep.equal(ids.map((id) => ({ event_id: id, statement_events: 8 })));
  });

  it("with inline read models, a batch's set-based statement that a read model refuses fails only the append of the event it refused", async () => {
    ({ engine, store } = await startInline(t.db, store, [batchedRowsProjector('typed_rows')], { idlePollMs: 20 }));

    const landed = await appendsWithPoisonAt(16, 5);
    expect((await batchedRows(t.db, 'typed_rows')).map((r) => r.event_id)).to.deep.equal([...landed].sort());
  });

  it('with inline read models, an event a read model refuses fails only its own append; the batch around it lands with its rows', async () => {
    const seen = recordingProjector('seen_group');
    const refusing = logProjector({
      name: 'refusing_group',
      version: 1,
      schemaSql: 'CREATE TABLE IF NOT EXISTS refusing_group (n int)',
      onAny: async (_tx, e) => {
        if (e.type === 'Poison') throw new Error('cannot apply');
      },
    });
    ({ engine, store } = await startInline(t.db, store, [seen, refusing], { idlePollMs: 20 }));

    // Inline, 24 at once are spread over two slots, twelve to a batch: the refused one is inside a batch.
    const landed = await appendsWithPoisonAt(24, 12);
    expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_group'), landed)).to.equal(null);
  });
});
