import { expect } from 'chai';
import { PostgresDb } from '../../src/db/postgres-db.js';
import type { Row, SqlDb, SqlExecutor } from '../../src/db/sql.js';
import type { RecordedEvent, UnpositionedEvent } from '../../src/events/envelope.js';
import { comparePositions, START } from '../../src/events/position.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { applyBatch, applyEvents } from '../../src/projections/apply-batch.js';
import { readCheckpoints, useSchema } from '../../src/projections/checkpoints.js';
import { logProjector, writes, type Projector } from '../../src/projections/projector.js';
import { installReadModels } from '../../src/projections/read-model-schema.js';
import { replay } from '../../src/projections/replay.js';
import { ProjectorEventError } from '../../src/projections/stall.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent, uniqueStream } from '../support/events.js';
import {
  assertExactlyOnceInStreamOrder,
  batchedRows,
  batchedRowsProjector,
  recordedRows,
  recordingProjector,
} from '../support/projectors.js';
import { until } from '../support/until.js';

describe(`applying a batch: the writes of many events share round trips (${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;
  let store: SqlEventStore;
  beforeEach(async () => {
    t = await openTestDatabase();
    store = await SqlEventStore.open(t.db);
  });
  afterEach(() => t.drop());

  /** Placed writes a row (statements only); Counted reads how many rows the events before it wrote. */
  const placedAndCounted: Projector = {
    name: 'placed_counted',
    version: 1,
    schemaSql: `CREATE TABLE IF NOT EXISTS placed (n int PRIMARY KEY);
                CREATE TABLE IF NOT EXISTS counted (at int PRIMARY KEY, placed_before bigint NOT NULL)`,
    on: {
      Placed: writes<RecordedEvent, UnpositionedEvent>((e) => {
        // As a decoder does with an event it cannot read: it throws before any statement exists.
        if (e.data.n === null) throw new Error('no number to place');
        return [['INSERT INTO placed (n) VALUES ($1)', [e.data.n]]];
      }),
      Counted: async (tx, e) => {
        const seen = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM placed');
        await tx.query('INSERT INTO counted (at, placed_before) VALUES ($1, $2)', [e.data.at, seen.rows[0]!.n]);
      },
    },
  };

  /** The batch as the log holds it, applied in one transaction; answers the most statements ever unanswered at once. */
  async function applied(events: ReturnType<typeof newEvent>[]): Promise<number> {
    await store.appendToStream(uniqueStream('order'), events, 'no_stream');
    await installReadModels(t.db, [placedAndCounted], 'rm');
    const batch = await store.readAll();
    let unanswered = 0;
    let most = 0;
    await t.db.transaction(async (tx) => {
      await useSchema(tx, 'rm');
      const watched: SqlExecutor = {
        query: <R extends Row = Row>(text: string, params?: readonly unknown[]) => {
          most = Math.max(most, ++unanswered);
          return tx.query<R>(text, params).finally(() => unanswered--);
        },
      };
      await applyEvents(watched, placedAndCounted, batch);
    });
    return most;
  }

  it('sends the writes of a run of events before the first answer, and a handler that reads sees every one of them', async () => {
    const placed = Array.from({ length: 20 }, (_, n) => newEvent('Placed', { n }));
    const most = await applied([...placed.slice(0, 12), newEvent('Counted', { at: 12 }), ...placed.slice(12)]);
    expect(most).to.be.at.least(12);
    const counted = await t.db.query<{ at: number; placed_before: string }>('SELECT at, placed_before::text FROM rm.counted');
    expect(counted.rows).to.deep.equal([{ at: 12, placed_before: '12' }]);
    expect((await t.db.query('SELECT n FROM rm.placed')).rows).to.have.length(20);
  });

  it("a replay writes pages without waiting for each other's commit, and a handler that reads still sees every write of the pages before", async () => {
    const events = Array.from({ length: 60 }, (_, i) => (i % 7 === 6 ? newEvent('Counted', { at: i }) : newEvent('Placed', { n: i })));
    const { position } = await store.appendToStream(uniqueStream('order'), events, 'no_stream');
    // A replay reads the log below the cluster's oldest running transaction: on a busy server (another suite's), wait for ours.
    const shown = async () => comparePositions((await store.headPosition()) ?? START, position) >= 0;
    await until(shown);
    const report = await replay({ db: t.db, store, projectors: [placedAndCounted, recordingProjector('seen_beside')], batchSize: 4 });
    expect(report.events).to.equal(60);
    const counted = await t.db.query<{ at: number; placed_before: number }>('SELECT at, placed_before::int FROM rm.counted ORDER BY at');
    expect(counted.rows).to.deep.equal(
      events.flatMap((e, i) => (e.type === 'Counted' ? [{ at: i, placed_before: i - Math.floor((i + 1) / 7) + 1 }] : [])),
    );
    const ids = events.map((e) => e.metadata.eventId);
    expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_beside'), ids)).to.equal(null);
  });

  it('a write that fails is pinned on its own event, not on the later ones that found the transaction aborted', async () => {
    const duplicate = newEvent('Placed', { n: 1 });
    const failure = await applied([
      newEvent('Placed', { n: 1 }),
      newEvent('Placed', { n: 2 }),
      duplicate,
      newEvent('Placed', { n: 3 }),
      newEvent('Counted', { at: 4 }),
    ]).catch((e: unknown) => e);
    expect(failure).to.be.instanceOf(ProjectorEventError);
    const pinned = failure as ProjectorEventError;
    expect(pinned.event.metadata.eventId).to.equal(duplicate.metadata.eventId);
    expect(pinned.index).to.equal(2);
    expect((pinned.cause as { code?: string }).code).to.equal('23505');
  });

  it('an event whose statements cannot even be built is named, after the writes before it are answered', async () => {
    const unreadable = newEvent('Placed', { n: null });
    const failure = await applied([newEvent('Placed', { n: 1 }), unreadable, newEvent('Placed', { n: 2 })]).catch((e: unknown) => e);
    expect(failure).to.be.instanceOf(ProjectorEventError);
    expect((failure as ProjectorEventError).event.metadata.eventId).to.equal(unreadable.metadata.eventId);
    expect(((failure as ProjectorEventError).cause as Error).message).to.equal('no number to place');
  });

  describe("as a follower of the log does: the set-based form and the checkpoint's compare-and-set sent at once", () => {
    // No key on its rows: an event applied twice would show up as a second row.
    const batched = batchedRowsProjector('batched', { unique: false });

    async function logged(events: ReturnType<typeof newEvent>[]): Promise<RecordedEvent[]> {
      await store.appendToStream(uniqueStream('order'), events, 'no_stream');
      await installReadModels(t.db, [batched], 'rm');
      return store.readAll();
    }
    const checkpoint = async () =>
      (await t.db.transaction((tx) => readCheckpoints(tx, 'rm'))).find((r) => r.projector === 'batched')!.position;
    const placed = (n: number) => Array.from({ length: n }, (_, i) => newEvent('Placed', { i }));

    it("writes the batch and moves the checkpoint past it in one statement, the transaction's only one", async () => {
      const batch = await logged(placed(3));
      const sent: string[] = [];
      const watched = Object.create(t.db) as SqlDb;
      watched.transaction = (fn, options) =>
        t.db.transaction((tx) => fn({ query: (text, params) => (sent.push(text), tx.query(text, params)) }), options);
      const outcome = await applyBatch(watched, 'rm', batched, await checkpoint(), batch);
      expect(sent).to.have.length(1);
      expect(outcome).to.deep.equal({ applied: true, checkpoint: batch[2]!.position });
      expect(await checkpoint()).to.deep.equal(batch[2]!.position);
      expect((await batchedRows(t.db, 'batched')).map((r) => r.statement_events)).to.deep.equal([3, 3, 3]);
    });

    it('a checkpoint moved meanwhile (another instance, a swap) takes the batch back: nothing applied twice, the caller told where it stands', async () => {
      const batch = await logged(placed(4));
      const start = await checkpoint();
      await applyBatch(t.db, 'rm', batched, start, batch.slice(0, 2));
      const outcome = await applyBatch(t.db, 'rm', batched, start, batch);
      expect(outcome).to.deep.equal({ applied: false, checkpoint: batch[1]!.position });
      expect((await batchedRows(t.db, 'batched')).map((r) => r.event_id).sort()).to.deep.equal(
        batch
          .slice(0, 2)
          .map((e) => e.metadata.eventId)
          .sort(),
      );
    });

    it('a read model that keeps its generic plans is planned a few times over many batches; without, at most of them', async function () {
      if (!t.url) return this.skip(); // PostgreSQL's cached plans: PGlite runs the statements unnamed
      /** Counts its events by id among many rows: an array's generic plan counts ten, a batch's custom plan three. */
      const tallied = (name: string, genericPlans: boolean): Projector =>
        logProjector({
          name,
          version: 1,
          genericPlans,
          schemaSql: `CREATE TABLE IF NOT EXISTS ${name} (id uuid PRIMARY KEY, n int NOT NULL)`,
          onAny: async (tx, e) => {
            await tx.query(`UPDATE ${name} SET n = n + 1 WHERE id = $1`, [e.metadata.eventId]);
          },
          batchStatements: (events) => [
            [`UPDATE ${name} SET n = n + 1 WHERE id = ANY($1::uuid[])`, [events.map((e) => e.metadata.eventId)]],
          ],
        });
      const custom = tallied('tallied_custom', false);
      const generic = tallied('tallied_generic', true);
      for (let b = 0; b < 12; b++) await store.appendToStream(uniqueStream('tally'), placed(3), 'no_stream');
      const log = await store.readAll();
      // One connection, so every batch and the look at its prepared statements share it.
      const db = new PostgresDb(t.url, { max: 1 });
      try {
        for (const p of [custom, generic]) {
          await installReadModels(db, [p], 'rm');
          await db.query(`INSERT INTO rm.${p.name} SELECT gen_random_uuid(), 0 FROM generate_series(1, 20000)`);
          await db.query(`ANALYZE rm.${p.name}`);
          for (let b = 0, at = START; b < 12; b++) {
            const outcome = await applyBatch(db, 'rm', p, at, log.slice(3 * b, 3 * b + 3));
            expect(outcome.applied).to.equal(true);
            at = outcome.checkpoint;
          }
        }
        const plans = async (table: string) =>
          (
            await db.query<{ generic: number; custom: number }>(
              `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement LIKE $1`,
              [`%UPDATE ${table} SET n = n + 1 WHERE id = ANY%`],
            )
          ).rows[0]!;
        expect((await plans('tallied_custom')).custom).to.be.at.least(10);
        expect(await plans('tallied_generic')).to.deep.equal({ generic: 12, custom: 0 });
      } finally {
        await db.close();
      }
    });

    it('a set-based form that fails is taken back whole, and the per-event handlers name the event', async () => {
      const poison = newEvent('Poison', {});
      const batch = await logged([...placed(2), poison, ...placed(1)]);
      const start = await checkpoint();
      const failure = await applyBatch(t.db, 'rm', batched, start, batch).catch((e: unknown) => e);
      expect(failure).to.be.instanceOf(ProjectorEventError);
      expect((failure as ProjectorEventError).event.metadata.eventId).to.equal(poison.metadata.eventId);
      expect(await batchedRows(t.db, 'batched')).to.deep.equal([]);
      expect(await checkpoint()).to.deep.equal(start);
    });
  });
});
