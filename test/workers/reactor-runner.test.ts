import { expect } from 'chai';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { formatPosition } from '../../src/events/position.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { createLogger } from '../../src/logger.js';
import type { Reactor } from '../../src/workers/reactor.js';
import { ReactorRunner } from '../../src/workers/reactor-runner.js';
import { CountedReads } from '../support/counted-reads.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent, uniqueStream } from '../support/events.js';
import { until } from '../support/until.js';

/** A reactor that notes the events of one type it saw. */
function noting(name: string, type: string): Reactor & { seen: RecordedEvent[] } {
  const seen: RecordedEvent[] = [];
  return { name, types: new Set([type]), seen, react: async (e) => void seen.push(e) };
}

describe(`reactor runner: checkpoints and shared reads (${mainBackend})`, function () {
  this.timeout(30_000);
  let t: TestDatabase;
  let store: SqlEventStore;
  before(async () => {
    t = await openTestDatabase();
    store = await SqlEventStore.open(t.db);
  });
  after(() => t.drop());

  const checkpointOf = async (name: string): Promise<string | null> => {
    const row = (
      await t.db.query<{ commit: string; prepare: string }>(
        'SELECT commit_pos::text AS commit, prepare_pos::text AS prepare FROM reactors.checkpoints WHERE reactor = $1',
        [name],
      )
    ).rows[0];
    return row ? `${row.commit}/${row.prepare}` : null;
  };

  /** A runner whose idle poll never comes in a test: it looks at the log only when an append wakes it. */
  const lookingOnlyWhenWoken = async (reactor: Reactor, reads: CountedReads): Promise<ReactorRunner> => {
    const runner = new ReactorRunner({
      db: t.db,
      store: reads.store,
      reactors: [reactor],
      logger: createLogger('silent'),
      idlePollMs: 60_000,
    });
    await runner.start();
    return runner;
  };

  it('moves its checkpoint at once past an event it reacted to, writes none for events it ignores, and saves where it stood when stopped', async () => {
    const reactor = noting(`noting-${Date.now()}`, 'Wanted');
    const runner = new ReactorRunner({ db: t.db, store, reactors: [reactor], logger: createLogger('silent'), idlePollMs: 20 });
    await runner.start();
    try {
      const wanted = await store.appendToStream(uniqueStream(), [newEvent('Wanted')], 'no_stream');
      await until(async () => (await checkpointOf(reactor.name)) === formatPosition(wanted.position));
      expect(reactor.seen.map((e) => e.type)).to.deep.equal(['Wanted']);

      let ignored = wanted;
      for (let i = 0; i < 5; i++) ignored = await store.appendToStream(uniqueStream(), [newEvent('Ignored')], 'no_stream');
      await new Promise((r) => setTimeout(r, 200));
      expect(await checkpointOf(reactor.name)).to.equal(formatPosition(wanted.position));
      await runner.stop();
      expect(await checkpointOf(reactor.name)).to.equal(formatPosition(ignored.position));
    } finally {
      await runner.stop();
    }
  });

  it('reads the log once per append it is woken by: the page with the event, not a second look at the empty rest', async () => {
    const reads = new CountedReads(store);
    const reactor = noting(`once-${Date.now()}`, 'Once');
    const runner = await lookingOnlyWhenWoken(reactor, reads);
    try {
      await until(() => reads.count > 0);
      await new Promise((r) => setTimeout(r, 100));
      for (let i = 1; i <= 3; i++) {
        reads.count = 0;
        await store.appendToStream(uniqueStream(), [newEvent('Once')], 'no_stream');
        await until(() => reactor.seen.length === i);
        await new Promise((r) => setTimeout(r, 100));
        expect(reads.count).to.equal(1);
      }
    } finally {
      await runner.stop();
    }
  });

  it('looks again for an event held back behind an older open transaction with waits that grow, and sees it once that ends', async function () {
    // PGlite runs one transaction at a time: nothing can be held back there.
    if (mainBackend !== 'postgres') this.skip();
    const reads = new CountedReads(store);
    const reactor = noting(`held-back-${Date.now()}`, 'HeldBack');
    const runner = await lookingOnlyWhenWoken(reactor, reads);
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const older = t.db.transaction(async (tx) => {
      await tx.query('SELECT pg_current_xact_id()');
      await released;
    });
    try {
      await until(() => reads.count > 0);
      await store.appendToStream(uniqueStream(), [newEvent('HeldBack')], 'no_stream');
      reads.count = 0;
      await new Promise((r) => setTimeout(r, 500));
      expect(reactor.seen).to.have.length(0);
      // Every 2 ms this was 250 reads; growing to 16 ms it is about 35.
      expect(reads.count).to.be.within(10, 50);
      release();
      await older;
      const ended = Date.now();
      await until(() => reactor.seen.length === 1);
      expect(Date.now() - ended).to.be.below(200);
    } finally {
      release();
      await runner.stop();
    }
  });

  it('several reactors read each page of the log once between them', async () => {
    /** Reads of the database that found the event: a page, not the empty look past the head a wake-up makes. */
    let reads = 0;
    const counting = Object.create(store) as SqlEventStore;
    counting.readAll = async (options) => {
      const page = await store.readAll(options);
      if (page.some((e) => e.type === 'Shared')) reads++;
      return page;
    };
    const reactors = [1, 2, 3, 4].map((i) => noting(`shared-${i}-${Date.now()}`, 'Shared'));
    const runner = new ReactorRunner({ db: t.db, store: counting, reactors, logger: createLogger('silent'), idlePollMs: 60_000 });
    await runner.start();
    try {
      await new Promise((r) => setTimeout(r, 100));
      await store.appendToStream(uniqueStream(), [newEvent('Shared')], 'no_stream');
      await until(() => reactors.every((r) => r.seen.length === 1));
      // Each reactor reading for itself would fetch that page four times.
      expect(reads).to.equal(1);
    } finally {
      await runner.stop();
    }
  });

  it('reacts only to the events its page lookup keeps, asks once a page, and asks again after a failed lookup rather than skip the page', async () => {
    const reactor = noting(`choosy-${Date.now()}`, 'Maybe');
    const asked: number[] = [];
    const choosy: Reactor = {
      ...reactor,
      worthReacting: async (events) => {
        asked.push(events.length);
        if (asked.length === 1) throw new Error('read model unreachable');
        return events.filter((e) => e.data.wanted === true);
      },
    };
    const runner = new ReactorRunner({ db: t.db, store, reactors: [choosy], logger: createLogger('silent'), idlePollMs: 20, retryMs: 20 });
    await runner.start();
    try {
      const page = [true, false, true, false].map((wanted, i) => newEvent('Maybe', { wanted, i }));
      const written = await store.appendToStream(uniqueStream(), page, 'no_stream');
      await until(() => reactor.seen.length === 2);
      await until(async () => (await checkpointOf(reactor.name)) === formatPosition(written.position));
      expect(reactor.seen.map((e) => e.data.i)).to.deep.equal([0, 2]);
      // The failed lookup and its retry, each over the page's four events.
      expect(asked).to.deep.equal([4, 4]);
    } finally {
      await runner.stop();
    }
  });
});
