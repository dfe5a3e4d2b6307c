import { expect } from 'chai';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { WrongExpectedVersionError } from '../../src/events/errors.js';
import { verifyChain } from '../../src/events/hash-chain.js';
import { LogVerifier } from '../../src/events/log-verification.js';
import { comparePositions, START } from '../../src/events/position.js';
import type { EventStore } from '../../src/events/store.js';
import { newEvent, uniqueStream } from '../support/events.js';

export type StoreUnderTest = { store: EventStore; dispose(): Promise<void> };

/**
 * The rules every event store adapter keeps. Streams are unique per test and global reads are
 * filtered to them, so the suite also runs against a shared server with other traffic.
 */
export function eventStoreContract(open: () => Promise<StoreUnderTest>): void {
  let sut: StoreUnderTest;
  let store: EventStore;
  before(async () => {
    sut = await open();
    store = sut.store;
  });
  after(() => sut.dispose());

  async function expectWrongVersion(p: Promise<unknown>, actual: number | 'no_stream'): Promise<void> {
    const error = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(WrongExpectedVersionError);
    expect((error as WrongExpectedVersionError).actual).to.equal(actual);
  }

  describe('append with an expected revision', () => {
    it('no_stream creates the stream at revisions 0..n-1 and answers the last one', async () => {
      const s = uniqueStream();
      const r = await store.appendToStream(s, [newEvent('A'), newEvent('B'), newEvent('C')], 'no_stream');
      expect(r.nextExpectedRevision).to.equal(2);
      expect((await store.readStream(s)).map((e) => e.revision)).to.deep.equal([0, 1, 2]);
    });

    it('no_stream on an existing stream is refused with its actual revision', async () => {
      const s = uniqueStream();
      await store.appendToStream(s, [newEvent('A')], 'no_stream');
      await expectWrongVersion(store.appendToStream(s, [newEvent('B')], 'no_stream'), 0);
      expect(await store.readStream(s)).to.have.length(1);
    });

    it('stream_exists is refused on a missing stream and accepted on an existing one', async () => {
      const s = uniqueStream();
      await expectWrongVersion(store.appendToStream(s, [newEvent('A')], 'stream_exists'), 'no_stream');
      expect(await store.readStream(s)).to.deep.equal([]);
      await store.appendToStream(s, [newEvent('A')], 'any');
      const r = await store.appendToStream(s, [newEvent('B')], 'stream_exists');
      expect(r.nextExpectedRevision).to.equal(1);
    });

    it('any appends whether or not the stream exists', async () => {
      const s = uniqueStream();
      expect((await store.appendToStream(s, [newEvent('A')], 'any')).nextExpectedRevision).to.equal(0);
      expect((await store.appendToStream(s, [newEvent('B')], 'any')).nextExpectedRevision).to.equal(1);
    });

    it('an exact revision must equal the 0-based number of the last event', async () => {
      const s = uniqueStream();
      await store.appendToStream(s, [newEvent('A'), newEvent('B')], 'no_stream');
      await expectWrongVersion(store.appendToStream(s, [newEvent('C')], 0), 1);
      await expectWrongVersion(store.appendToStream(s, [newEvent('C')], 2), 1);
      expect((await store.appendToStream(s, [newEvent('C')], 1)).nextExpectedRevision).to.equal(2);
    });

    it('an exact revision on a missing stream is refused', async () => {
      await expectWrongVersion(store.appendToStream(uniqueStream(), [newEvent('A')], 0), 'no_stream');
    });

    it('of concurrent writers expecting the same revision exactly one wins', async () => {
      const s = uniqueStream();
      await store.appendToStream(s, [newEvent('A')], 'no_stream');
      const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => store.appendToStream(s, [newEvent('B', { i })], 0)));
      expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
      for (const r of results.filter((x) => x.status === 'rejected')) {
        expect(r.reason).to.be.instanceOf(WrongExpectedVersionError);
      }
      expect(await store.readStream(s)).to.have.length(2);
    });

    it('of concurrent creators with no_stream exactly one wins', async () => {
      const s = uniqueStream();
      const results = await Promise.allSettled(
        Array.from({ length: 4 }, () => store.appendToStream(s, [newEvent('Created')], 'no_stream')),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
      expect(await store.readStream(s)).to.have.length(1);
    });

    it('a retried append with the same event ids is recognised and not written twice', async () => {
      const s = uniqueStream();
      const batch = [newEvent('A'), newEvent('B')];
      const first = await store.appendToStream(s, batch, 'no_stream');
      const again = await store.appendToStream(s, batch, 'no_stream');
      expect(again.nextExpectedRevision).to.equal(first.nextExpectedRevision);
      expect(await store.readStream(s)).to.have.length(2);
    });
  });

  describe('reading a stream', () => {
    it('answers its events in revision order with type, data and metadata as written', async () => {
      const s = uniqueStream();
      const written = [newEvent('A', { n: 1, nested: { ok: true } }), newEvent('B', { n: 2 }, { causationId: 'cause-1' })];
      await store.appendToStream(s, written, 'no_stream');
      const read = await store.readStream(s);
      expect(read.map((e) => e.type)).to.deep.equal(['A', 'B']);
      expect(read.map((e) => e.data)).to.deep.equal([{ n: 1, nested: { ok: true } }, { n: 2 }]);
      read.forEach((e, i) => {
        const { eventId, occurredAt, actor, correlationId, causationId, schemaVersion } = written[i]!.metadata;
        expect(e.streamId).to.equal(s);
        expect(e.metadata).to.include({ eventId, occurredAt, correlationId, causationId, schemaVersion });
        expect(e.metadata.actor).to.deep.equal(actor);
      });
    });

    it('reads from a revision and at most maxCount events', async () => {
      const s = uniqueStream();
      await store.appendToStream(
        s,
        [0, 1, 2, 3, 4].map((n) => newEvent('N', { n })),
        'no_stream',
      );
      const part = await store.readStream(s, { fromRevision: 2, maxCount: 2 });
      expect(part.map((e) => e.data.n)).to.deep.equal([2, 3]);
      expect((await store.readStream(s, { fromRevision: 4 })).map((e) => e.data.n)).to.deep.equal([4]);
      expect(await store.readStream(s, { fromRevision: 5 })).to.deep.equal([]);
      expect(await store.readStream(s, { fromRevision: 99, maxCount: 1 })).to.deep.equal([]);
    });

    it('keeps revision order past ten events (revisions are numbers, not text)', async () => {
      const s = uniqueStream();
      for (let n = 0; n < 12; n++) await store.appendToStream(s, [newEvent('N', { n })], n === 0 ? 'no_stream' : n - 1);
      expect((await store.readStream(s)).map((e) => e.data.n)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      expect((await store.readStream(s, { fromRevision: 9 })).map((e) => e.revision)).to.deep.equal([9, 10, 11]);
    });

    it('answers [] for a stream that does not exist', async () => {
      expect(await store.readStream(uniqueStream())).to.deep.equal([]);
    });
  });

  describe('reading all events', () => {
    it('answers every event after a position in commit order, positions increasing', async () => {
      const before = (await store.headPosition()) ?? START;
      const [a, b] = [uniqueStream(), uniqueStream()];
      await store.appendToStream(a, [newEvent('A0')], 'no_stream');
      await store.appendToStream(b, [newEvent('B0'), newEvent('B1')], 'no_stream');
      const mid = await store.appendToStream(a, [newEvent('A1')], 0);
      await store.appendToStream(b, [newEvent('B2')], 1);

      const mine = (await readAllAfter(store, before)).filter((e) => e.streamId === a || e.streamId === b);
      expect(mine.map((e) => e.type)).to.deep.equal(['A0', 'B0', 'B1', 'A1', 'B2']);
      for (let i = 1; i < mine.length; i++) expect(comparePositions(mine[i - 1]!.position, mine[i]!.position)).to.equal(-1);

      const afterMid = (await readAllAfter(store, mid.position)).filter((e) => e.streamId === a || e.streamId === b);
      expect(afterMid.map((e) => e.type)).to.deep.equal(['B2']);
    });

    it('pages with maxCount without losing or repeating an event', async () => {
      const before = (await store.headPosition()) ?? START;
      const s = uniqueStream();
      await store.appendToStream(
        s,
        Array.from({ length: 7 }, (_, n) => newEvent('N', { n })),
        'no_stream',
      );
      const seen: RecordedEvent[] = [];
      let after = before;
      for (;;) {
        const page = await store.readAll({ after, maxCount: 3 });
        if (page.length === 0) break;
        seen.push(...page);
        after = page[page.length - 1]!.position;
      }
      expect(seen.filter((e) => e.streamId === s).map((e) => e.data.n)).to.deep.equal([0, 1, 2, 3, 4, 5, 6]);
    });

    it('headPosition is the position of the newest event', async () => {
      const r = await store.appendToStream(uniqueStream(), [newEvent('A')], 'no_stream');
      const head = await store.headPosition();
      expect(head).to.not.equal(null);
      expect(comparePositions(head!, r.position)).to.be.at.least(0);
    });
  });

  describe('subscribing', () => {
    it('delivers past events, then new ones as they are appended', async () => {
      const before = (await store.headPosition()) ?? START;
      const s = uniqueStream();
      await store.appendToStream(s, [newEvent('Old')], 'no_stream');
      const sub = store.subscribeToAll({ after: before });
      const got: string[] = [];
      const done = (async () => {
        for await (const e of sub) {
          if (e.streamId !== s) continue;
          got.push(e.type);
          if (got.length === 3) break;
        }
      })();
      await store.appendToStream(s, [newEvent('New1')], 0);
      await store.appendToStream(s, [newEvent('New2')], 1);
      await withTimeout(done, 5000);
      await sub.close();
      expect(got).to.deep.equal(['Old', 'New1', 'New2']);
    });

    it('resumes from a checkpoint with no duplicate and no gap', async () => {
      const before = (await store.headPosition()) ?? START;
      const s = uniqueStream();
      await store.appendToStream(
        s,
        [0, 1, 2, 3].map((n) => newEvent('N', { n })),
        'no_stream',
      );

      const first = store.subscribeToAll({ after: before });
      let checkpoint = before;
      const seen: number[] = [];
      for await (const e of first) {
        if (e.streamId !== s) continue;
        seen.push(e.data.n as number);
        checkpoint = e.position;
        if (seen.length === 2) break;
      }
      await first.close();
      await store.appendToStream(
        s,
        [4, 5].map((n) => newEvent('N', { n })),
        3,
      );

      const second = store.subscribeToAll({ after: checkpoint });
      for await (const e of second) {
        if (e.streamId !== s) continue;
        seen.push(e.data.n as number);
        if (seen.length === 6) break;
      }
      await second.close();
      expect(seen).to.deep.equal([0, 1, 2, 3, 4, 5]);
    });
  });

  describe('hash links', () => {
    it('links each event to the previous one of its stream, across appends', async () => {
      const s = uniqueStream();
      await store.appendToStream(s, [newEvent('A'), newEvent('B')], 'no_stream');
      await store.appendToStream(s, [newEvent('C')], 1);
      const events = await store.readStream(s);
      expect(events[0]!.metadata.prevHash).to.equal(null);
      expect(events[1]!.metadata.prevHash).to.equal(events[0]!.metadata.hash);
      expect(events[2]!.metadata.prevHash).to.equal(events[1]!.metadata.hash);
      expect(events[0]!.metadata.hash).to.match(/^[0-9a-f]{64}$/);
      expect(verifyChain(events)).to.equal(null);
    });

    it('a changed, dropped or reordered event breaks the chain', async () => {
      const s = uniqueStream();
      await store.appendToStream(s, [newEvent('A', { v: 1 }), newEvent('B', { v: 2 }), newEvent('C', { v: 3 })], 'no_stream');
      const events = await store.readStream(s);
      const changed = events.map((e, i) => (i === 1 ? { ...e, data: { v: 20 } } : e));
      expect(verifyChain(changed)).to.deep.equal({ revision: 1, reason: 'hash_mismatch' });
      const dropped = [events[0]!, { ...events[2]!, revision: 1 }];
      expect(verifyChain(dropped)?.revision).to.equal(1);
      expect(verifyChain([events[1]!, events[0]!, events[2]!])).to.not.equal(null);
    });

    it('a log written through the port verifies intact in global order, and an edited event is found there (verify-log)', async () => {
      const from = (await store.headPosition()) ?? START;
      const [a, b] = [uniqueStream(), uniqueStream()];
      await store.appendToStream(a, [newEvent('A', { v: 1 }), newEvent('B', { v: 2 })], 'no_stream');
      await store.appendToStream(b, [newEvent('C', { v: 3 })], 'no_stream');
      await store.appendToStream(a, [newEvent('D', { v: 4 })], 1);
      const ours = (await store.readAll({ after: from, maxCount: 10_000 })).filter((e) => e.streamId === a || e.streamId === b);
      const intact = new LogVerifier([]);
      for (const e of ours) expect(intact.feed(e)).to.equal(null);
      expect(intact.events).to.equal(4);
      const edited = new LogVerifier([]);
      const broken = ours.map((e) => edited.feed(e.type === 'B' ? { ...e, data: { v: 20 } } : e)).find((x) => x !== null);
      expect(broken).to.deep.include({ position: ours.find((e) => e.type === 'B')!.position, streamId: a, revision: 1, reason: 'edited' });
    });

    it('streams have independent chains', async () => {
      const [a, b] = [uniqueStream(), uniqueStream()];
      await store.appendToStream(a, [newEvent('A')], 'no_stream');
      await store.appendToStream(b, [newEvent('B')], 'no_stream');
      expect((await store.readStream(b))[0]!.metadata.prevHash).to.equal(null);
    });
  });
}

async function readAllAfter(
  store: EventStore,
  after: Parameters<EventStore['readAll']>[0] extends infer O ? (O extends { after?: infer P } ? P : never) : never,
): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  let from = after;
  for (;;) {
    const page = await store.readAll({ after: from, maxCount: 1000 });
    if (page.length === 0) return all;
    all.push(...page);
    from = page[page.length - 1]!.position;
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms))]);
}
