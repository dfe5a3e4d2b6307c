import { expect } from 'chai';
import type { SqlDb } from '../../src/db/sql.js';
import type { NewEvent } from '../../src/events/envelope.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { ProjectionEngine, ProjectionTimeoutError } from '../../src/projections/engine.js';
import { ProjectionStalledError } from '../../src/projections/stall.js';
import { mainBackend, openSecondConnection, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent, uniqueStream } from '../support/events.js';
import { assertExactlyOnceInStreamOrder, recordedRows, recordingProjector } from '../support/projectors.js';

const quick = { idlePollMs: 50, leaseRetryMs: 100 };

describe(`projection engine (${mainBackend})`, function () {
  this.timeout(120_000);
  let t: TestDatabase;
  let store: SqlEventStore;
  const engines: ProjectionEngine[] = [];

  beforeEach(async () => {
    t = await openTestDatabase();
    store = await SqlEventStore.open(t.db);
  });
  afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.stop()));
    await t.drop();
  });

  function engine(db: SqlDb, projectors = [recordingProjector('seen_a'), recordingProjector('seen_b')], extra = {}) {
    const e = new ProjectionEngine({ db, store, projectors, ...quick, ...extra });
    engines.push(e);
    return e;
  }

  async function appendSome(count: number, streams = 3): Promise<string[]> {
    const ids: string[] = [];
    const names = Array.from({ length: streams }, () => uniqueStream());
    for (let i = 0; i < count; i++) {
      const e = newEvent('Happened', { i });
      ids.push(e.metadata.eventId);
      await store.appendToStream(names[i % streams]!, [e], 'any');
    }
    return ids;
  }

  /**
   * Waits for the newest event appended so far. Not headPosition(): that is what readers can see
   * now, and a projector's own open transaction can hold the newest events back from it.
   */
  async function waitForAll(e: ProjectionEngine): Promise<void> {
    const r = await t.db.query<{ commit: string; prepare: string }>(
      'SELECT transaction_id::text AS commit, position::text AS prepare FROM es.events ORDER BY transaction_id DESC, position DESC LIMIT 1',
    );
    const last = r.rows[0];
    if (last) await e.waitFor({ commit: BigInt(last.commit), prepare: BigInt(last.prepare) }, { timeoutMs: 60_000 });
  }

  it('8 concurrent writers append 5,000 events; every projector sees each exactly once, in stream order', async () => {
    const e = engine(t.db);
    await e.start();
    const streams = Array.from({ length: 40 }, () => uniqueStream());
    const ids: string[] = [];
    const writer = async (w: number) => {
      for (let n = 0; n < 625;) {
        const size = Math.min(1 + (n % 3), 625 - n);
        const batch: NewEvent[] = Array.from({ length: size }, (_, k) => newEvent('Written', { w, n: n + k }));
        batch.forEach((b) => ids.push(b.metadata.eventId));
        await store.appendToStream(streams[(w * 7 + n) % streams.length]!, batch, 'any');
        n += size;
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
    expect(ids).to.have.length(5000);
    await waitForAll(e);
    for (const name of ['seen_a', 'seen_b']) {
      const rows = await recordedRows(t.db, name);
      expect(assertExactlyOnceInStreamOrder(rows, ids), name).to.equal(null);
    }
  });

  it('a projector stopped between two events of a batch resumes with no duplicate and no gap', async () => {
    const ids = await appendSome(10);
    let crashAt: string | null = ids[6]!;
    const crashing = recordingProjector('seen_a', {
      before: async (id) => {
        if (id === crashAt) throw new Error('simulated crash between two events of a batch');
      },
    });
    const first = engine(t.db, [crashing], { batchSize: 100 });
    await first.start();
    await new Promise((r) => setTimeout(r, 300));
    await first.stop();
    // The batch that held the crash was rolled back whole, then the six events before the crash
    // were applied on their own: the projector stands right before the event it cannot apply.
    expect((await recordedRows(t.db, 'seen_a')).map((r) => r.event_id)).to.deep.equal(ids.slice(0, 6));
    expect((await first.status())[0]!.eventsSeen).to.equal(6);

    crashAt = null;
    const second = engine(t.db, [crashing], { batchSize: 100 });
    await second.start();
    await waitForAll(second);
    expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_a'), ids)).to.equal(null);
  });

  it('resumes from its checkpoint after a restart, applying only what came after', async () => {
    const before = await appendSome(5);
    const first = engine(t.db);
    await first.start();
    await waitForAll(first);
    await first.stop();
    const later = await appendSome(5);
    const second = engine(t.db);
    await second.start();
    await waitForAll(second);
    expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_b'), [...before, ...later])).to.equal(null);
  });

  it('two instances never both run a projector; the second takes over when the first stops', async () => {
    const dbB = t.url ? openSecondConnection(t) : t.db;
    try {
      const a = engine(t.db);
      await a.start();
      await waitUntil(() => a.runningHere().length === 2);
      const b = engine(dbB);
      await b.start();
      const ids = await appendSome(30);
      await waitForAll(a);
      expect(b.runningHere()).to.deep.equal([]);

      await a.stop();
      await waitUntil(() => b.runningHere().length === 2);
      const more = await appendSome(30);
      await waitForAll(b);
      for (const name of ['seen_a', 'seen_b']) {
        expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, name), [...ids, ...more]), name).to.equal(null);
      }
    } finally {
      if (dbB !== t.db) await dbB.close();
    }
  });

  (mainBackend === 'postgres' ? it : it.skip)(
    'when an instance dies mid-batch, another takes over and nothing is applied twice',
    async () => {
      const dbA = openSecondConnection(t, 'instance-a');
      const dbB = openSecondConnection(t, 'instance-b');
      try {
        const ids = await appendSome(20);
        let holdAt: string | null = ids[12]!;
        let reached!: () => void;
        const midBatch = new Promise<void>((r) => {
          reached = r;
        });
        let release!: () => void;
        const released = new Promise<void>((r) => {
          release = r;
        });
        const slowProjector = recordingProjector('seen_a', {
          before: async (id) => {
            if (id !== holdAt) return;
            reached();
            await released;
          },
        });
        const a = engine(dbA, [slowProjector], { batchSize: 100 });
        await a.start();
        await midBatch;
        const b = engine(dbB, [slowProjector], { batchSize: 100 });
        await b.start();
        holdAt = null;
        // The process of instance A dies: every connection it had is cut, its lease with them, and
        // it never reconnects (a live process would, and could rightly win its lease back).
        const dying = dbA.close();
        await t.db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'instance-a'`);
        release();
        await dying;
        await waitUntil(() => b.runningHere().length === 1);
        const more = await appendSome(10);
        await waitForAll(b);
        expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_a'), [...ids, ...more])).to.equal(null);
      } finally {
        await Promise.all(engines.splice(0).map((e) => e.stop()));
        await Promise.all([dbA.close(), dbB.close()]);
      }
    },
  );

  it('waitFor resolves once the event is in every read model, and times out when none runs', async () => {
    const e = engine(t.db);
    await e.start();
    const event = newEvent('Visible');
    const r = await store.appendToStream(uniqueStream(), [event], 'no_stream');
    await e.waitFor(r.position);
    for (const name of ['seen_a', 'seen_b']) {
      expect((await recordedRows(t.db, name)).map((x) => x.event_id)).to.include(event.metadata.eventId);
    }
    await e.stop();
    const late = await store.appendToStream(uniqueStream(), [newEvent('Late')], 'no_stream');
    const error = await e.waitFor(late.position, { timeoutMs: 300 }).then(
      () => null,
      (x: unknown) => x,
    );
    expect(error).to.be.instanceOf(ProjectionTimeoutError);
  });

  describe('a handler that throws on one event', () => {
    it('stops right at it, records the stall for every instance, and waiting on it fails at once', async () => {
      const before = newEvent('Fine');
      const poison = newEvent('Poison');
      await store.appendToStream(uniqueStream(), [before, poison], 'no_stream');
      const failing = recordingProjector('seen_a', {
        before: async (id) => {
          if (id === poison.metadata.eventId) throw new TypeError('cannot apply');
        },
      });
      const a = new ProjectionEngine({ db: t.db, store, projectors: [failing], ...quick, batchSize: 100 });
      engines.push(a);
      await a.start();
      await waitUntil(async () => (await a.status())[0]!.stalled !== null);

      const [status] = await a.status();
      expect(status!.stalled).to.include({ errorClass: 'TypeError' });
      expect(status!.stalled!.position).to.deep.equal(
        (await store.readAll()).find((e) => e.metadata.eventId === poison.metadata.eventId)!.position,
      );
      expect((await recordedRows(t.db, 'seen_a')).map((r) => r.event_id)).to.deep.equal([before.metadata.eventId]);

      // Another instance, which does not run the projector, sees the stall in the database.
      const dbB = t.url ? openSecondConnection(t) : t.db;
      try {
        const b = new ProjectionEngine({ db: dbB, store, projectors: [failing], ...quick });
        const later = await store.appendToStream(uniqueStream(), [newEvent('Later')], 'no_stream');
        const started = Date.now();
        const error = await b.waitFor(later.position, { timeoutMs: 10_000 }).then(
          () => null,
          (x: unknown) => x,
        );
        expect(error).to.be.instanceOf(ProjectionStalledError);
        expect(error).to.include({ projector: 'seen_a', errorClass: 'TypeError' });
        expect(Date.now() - started).to.be.below(2000);
      } finally {
        if (dbB !== t.db) await dbB.close();
      }
    });
  });
});

async function waitUntil(condition: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
