import { expect } from 'chai';
import { comparePositions, START } from '../../src/events/position.js';
import { READ_GAP_MS, SharedLogReads } from '../../src/events/recent-events.js';
import type { ReadAllOptions } from '../../src/events/store.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent } from '../support/events.js';

describe(`one reader of the log for all the loops of an instance (issue 48; ${mainBackend})`, () => {
  let t: TestDatabase;
  let store: SqlEventStore;
  const asked: ReadAllOptions[] = [];
  /** When each read of the database began (performance.now()). */
  const began: number[] = [];
  let reads: SharedLogReads;

  before(async () => {
    t = await openTestDatabase();
    store = await SqlEventStore.open(t.db);
    for (let s = 0; s < 12; s++)
      await store.appendToStream(
        `noted-${s}`,
        Array.from({ length: 100 }, (_, i) => newEvent('Noted', { i })),
        'no_stream',
      );
  });
  beforeEach(() => {
    asked.length = 0;
    began.length = 0;
    reads = new SharedLogReads({
      readAll: (options) => {
        asked.push(options ?? {});
        began.push(performance.now());
        return store.readAll(options);
      },
      onAppended: (listener) => store.onAppended(listener),
    });
  });
  after(() => t.drop());

  it('loops woken together share one read, whatever page each asks for, and each gets the log in order up to its own page', async () => {
    const [reactor, projector] = await Promise.all([reads.read(START, 100), reads.read(START, 500)]);
    expect(asked).to.have.length(1);
    expect(reactor).to.have.length(100);
    expect(projector).to.have.length(500);
    expect(reactor.map((e) => e.position)).to.deep.equal(projector.slice(0, 100).map((e) => e.position));
    expect(projector).to.deep.equal(await store.readAll({ after: START, maxCount: 500 }));
  });

  it('a loop a page behind takes it from what the others read; one asking for more than the read in flight reads on after it', async () => {
    const first = await reads.read(START, 100);
    const behind = await reads.read(first.at(-1)!.position, 100);
    // The first read fetched a shared page of 500: the next 100 came from memory.
    expect(asked.map((o) => o.maxCount)).to.deep.equal([500]);
    expect(behind).to.deep.equal(await store.readAll({ after: first.at(-1)!.position, maxCount: 100 }));
    const end = (await store.readAll({ after: START, maxCount: 500 })).at(-1)!.position;
    const [reactor, checkpointer] = await Promise.all([reads.read(end, 100), reads.read(end, 1000)]);
    // Past what memory holds: the reactor's read is in flight for 500, too short for the checkpointer's
    // 1000, which takes it and reads on from its end.
    expect(asked.map((o) => o.maxCount)).to.deep.equal([500, 500, 500]);
    expect(asked[2]!.after).to.deep.equal(checkpointer[499]!.position);
    expect(checkpointer).to.have.length(700);
    expect(reactor).to.deep.equal(checkpointer.slice(0, 100));
  });

  it('a short page comes from memory only while no append was heard of since it was read: else the loop would sleep past it', async () => {
    const whole = await reads.read(START, 5000);
    expect(whole).to.have.length(1200);
    const nearEnd = whole.at(-51)!.position;
    // Memory answers a full page, and a short one while the log has not moved.
    expect(await reads.read(whole.at(599)!.position, 100)).to.deep.equal(whole.slice(600, 700));
    expect(await reads.read(nearEnd, 100)).to.deep.equal(whole.slice(-50));
    expect(asked).to.have.length(1);
    await store.appendToStream('noted-late', [newEvent('Noted', { late: true })], 'no_stream');
    const after = await reads.read(nearEnd, 100);
    expect(asked).to.have.length(2);
    expect(after).to.have.length(51);
    expect(after.at(-1)!.streamId).to.equal('noted-late');
  });

  it('loops at different places in what memory holds share one read of what follows it: no event memory holds is read again', async () => {
    const whole = await reads.read(START, 5000);
    await store.appendToStream('noted-shared', [newEvent('Noted', { shared: true })], 'no_stream');
    const places = [whole.at(-300)!, whole.at(-200)!, whole.at(-1)!].map((e) => e.position);
    const pages = await Promise.all(places.map((p) => reads.read(p, 1000)));
    expect(asked).to.have.length(2);
    expect(asked[1]!.after).to.deep.equal(whole.at(-1)!.position);
    for (const [i, place] of places.entries()) expect(pages[i]).to.deep.equal(await store.readAll({ after: place, maxCount: 1000 }));
  });

  it("reads of the log's end begin at least READ_GAP_MS apart, so a busy log is read in pages of many appends; idle, a read goes at once", async () => {
    let end = (await reads.read(START, 5000)).at(-1)!.position;
    // A loop woken by each of three appends in a row, reading the log's end each time.
    for (const n of [1, 2, 3]) {
      await store.appendToStream(`noted-busy-${n}`, [newEvent('Noted', { busy: n })], 'no_stream');
      const page = await reads.read(end, 1000);
      expect(page.at(-1)!.streamId).to.equal(`noted-busy-${n}`);
      end = page.at(-1)!.position;
    }
    expect(asked).to.have.length(4);
    // Measured where the read begins, a microtask after the reader's turn: a millisecond covers the hop.
    for (let i = 1; i < began.length; i++) expect(began[i]! - began[i - 1]!).to.be.at.least(READ_GAP_MS - 1);
    await new Promise((resolve) => setTimeout(resolve, READ_GAP_MS * 2));
    await store.appendToStream('noted-idle', [newEvent('Noted', { idle: true })], 'no_stream');
    const asking = performance.now();
    await reads.read(end, 1000);
    expect(began.at(-1)! - asking).to.be.below(READ_GAP_MS);
  });

  it('a loop catching up reads page after page at once: only a read after one that reached the log end waits', async () => {
    // The log as a store answering from memory at once, so any wait is the reader's own.
    const log = await store.readAll({ after: START, maxCount: 5000 });
    const instant = new SharedLogReads({
      readAll: (options = {}) => {
        began.push(performance.now());
        const from = options.after ? log.findIndex((e) => comparePositions(e.position, options.after!) > 0) : 0;
        return Promise.resolve(log.slice(from, from + (options.maxCount ?? 1000)));
      },
      onAppended: () => () => undefined,
    });
    const first = await instant.read(START, 500);
    const asking = performance.now();
    const second = await instant.read(first.at(-1)!.position, 500);
    expect([first.length, second.length]).to.deep.equal([500, 500]);
    expect(began[1]! - asking).to.be.below(READ_GAP_MS / 2);
    // At the log's end the next read waits its turn.
    const end = await instant.read(second.at(-1)!.position, 5000);
    expect(end.length).to.be.below(5000);
    await instant.read(end.at(-1)!.position, 500);
    // Spaced from the start of the read that reached the end, not from when this one was asked: a slow host may take the gap between.
    expect(began.at(-1)! - began.at(-2)!).to.be.at.least(READ_GAP_MS / 2);
  });
});
