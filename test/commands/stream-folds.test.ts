import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Decider, DomainEvent } from '../../src/commands/decider.js';
import { isRefusal, refuse } from '../../src/commands/refusal.js';
import { handle, type CommandDeps } from '../../src/commands/shell.js';
import { FOLDS_KEPT, foldingStore, readFolded, rememberFolded } from '../../src/commands/stream-folds.js';
import { eventDecoder, streamOf, type StreamRef } from '../../src/events/decoder.js';
import type { EventContext } from '../../src/events/envelope.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import type { EventStore } from '../../src/events/store.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { uniqueStream } from '../support/events.js';

/** Notes appended to a stream; the state is all of them, so its size grows with the stream. */
type Noted = DomainEvent<'Noted', { text: string }>;
type Note = { text: string };

const notes: Decider<string[], Note, Noted> = {
  initialState: [],
  evolve: (s, e) => [...s, e.data.text],
  decide: (s, c) => (s.includes(c.text) ? refuse('conflict', `${c.text.slice(0, 20)} is noted already`) : [{ type: 'Noted', data: c }]),
};
const noteEvents = eventDecoder<Noted>('note', { Noted: { version: 1 } });
const notesIn = (id: string): StreamRef<Noted> => streamOf(noteEvents, id);

/** A gate another instance may open or close: what memory refuses or finds done may have changed. */
type GateEvent = DomainEvent<'Opened' | 'Closed' | 'Passed', Record<string, never>>;
type GateCommand = 'open' | 'close' | 'pass';
const gate: Decider<{ open: boolean }, GateCommand, GateEvent> = {
  initialState: { open: false },
  evolve: (s, e) => (e.type === 'Passed' ? s : { open: e.type === 'Opened' }),
  decide: (s, c) => {
    if (c === 'pass') return s.open ? [{ type: 'Passed', data: {} }] : refuse('conflict', 'the gate is closed');
    return s.open === (c === 'open') ? [] : [{ type: c === 'open' ? 'Opened' : 'Closed', data: {} }];
  },
};
const gateEvents = eventDecoder<GateEvent>('gate', { Opened: { version: 1 }, Closed: { version: 1 }, Passed: { version: 1 } });
const gateIn = (id: string): StreamRef<GateEvent> => streamOf(gateEvents, id);

const context = (): EventContext => ({
  occurredAt: '2026-11-24T12:00:00.000Z',
  actor: { kind: 'user', id: 'u1' },
  correlationId: randomUUID(),
  causationId: null,
});

/** A store that records where each stream read began and how many events it answered. */
function readsRecorded(store: EventStore): { store: EventStore; reads: Array<{ from: number; got: number }> } {
  const reads: Array<{ from: number; got: number }> = [];
  const recording = Object.create(store) as EventStore;
  recording.readStream = async (id, options) => {
    const events = await store.readStream(id, options);
    reads.push({ from: options?.fromRevision ?? 0, got: events.length });
    return events;
  };
  recording.appendToStream = (id, events, expected) => store.appendToStream(id, events, expected);
  return { store: foldingStore(recording), reads };
}

describe(`folded streams: a command reads only what follows the revision this process knows (${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;

  before(async () => {
    t = await openTestDatabase();
  });
  after(async () => {
    await t.drop();
  });

  const depsOf = (store: EventStore): CommandDeps => ({ store, waitFor: async () => undefined });
  /** A note appended as the caller's first on a stream it takes to be new. */
  const noteOnNew = (deps: CommandDeps, stream: string, text: string) =>
    handle(deps, notesIn(stream), notes, { text }, { context: context(), newStream: true });
  const note = async (deps: CommandDeps, stream: string, text: string) => {
    const r = await handle(deps, notesIn(stream), notes, { text }, { context: context() });
    if (isRefusal(r)) expect.fail(r.message);
    return r;
  };

  it('after its own append, the next command decides on what it remembers and reads nothing', async () => {
    const { store, reads } = readsRecorded(await SqlEventStore.open(t.db));
    const stream = uniqueStream('notes');
    await note(depsOf(store), stream, 'first');
    await note(depsOf(store), stream, 'second');
    const third = await note(depsOf(store), stream, 'third');
    expect(third.revision).to.equal(2);
    expect(third.state).to.deep.equal(['first', 'second', 'third']);
    expect(reads).to.deep.equal([{ from: 0, got: 0 }]);
  });

  /** This instance notes 'mine' on a new stream, then another instance notes `theirs` on it: this one's memory is behind. */
  const behindAnother = async (...theirs: string[]) => {
    const mine = readsRecorded(await SqlEventStore.open(t.db));
    const other = depsOf(foldingStore(await SqlEventStore.open(t.db)));
    const stream = uniqueStream('notes');
    await note(depsOf(mine.store), stream, 'mine');
    for (const text of theirs) await note(other, stream, text);
    return { mine, stream };
  };

  it("a decision on memory another instance's events made stale is refused by the append, then taken on them", async () => {
    const { mine, stream } = await behindAnother('theirs', 'again');
    const refused = await handle(depsOf(mine.store), notesIn(stream), notes, { text: 'theirs' }, { context: context() });
    expect(isRefusal(refused) && refused.message).to.equal('theirs is noted already');
    expect(mine.reads.at(-1)).to.deep.equal({ from: 1, got: 2 });
    const noted = await note(depsOf(mine.store), stream, 'mine again');
    expect(noted.state).to.deep.equal(['mine', 'theirs', 'again', 'mine again']);
    expect((await mine.store.readStream(stream)).map((e) => e.data.text)).to.deep.equal(['mine', 'theirs', 'again', 'mine again']);
  });

  it('a stream memory was found behind on is read before each later command (another instance writes it)', async () => {
    const { mine, stream } = await behindAnother('theirs');
    await note(depsOf(mine.store), stream, 'second');
    const readsBefore = mine.reads.length;
    await note(depsOf(mine.store), stream, 'third');
    expect(mine.reads.slice(readsBefore)).to.deep.equal([{ from: 3, got: 0 }]);
  });

  it('a stream the caller has just named at random is created without a read', async () => {
    const { store, reads } = readsRecorded(await SqlEventStore.open(t.db));
    const created = await noteOnNew(depsOf(store), uniqueStream('notes'), 'first');
    expect(isRefusal(created) ? created.message : created.state).to.deep.equal(['first']);
    expect(reads).to.deep.equal([]);
  });

  it('a stream taken as new that holds events after all: the append refuses, the command reads and decides on them', async () => {
    const { mine, stream } = await behindAnother('theirs');
    const refused = await noteOnNew(depsOf(mine.store), stream, 'theirs');
    expect(isRefusal(refused) && refused.message).to.equal('theirs is noted already');
    const noted = await noteOnNew(depsOf(mine.store), stream, 'later');
    expect(isRefusal(noted) ? noted.message : noted.state).to.deep.equal(['mine', 'theirs', 'later']);
    expect((await mine.store.readStream(stream)).map((e) => e.data.text)).to.deep.equal(['mine', 'theirs', 'later']);
  });

  describe('an answer other than an append is never taken on memory alone', () => {
    const pass = async (store: EventStore, stream: string, command: GateCommand, expectedRevision?: number) => {
      const r = await handle(depsOf(store), gateIn(stream), gate, command, {
        context: context(),
        ...(expectedRevision === undefined ? {} : { expectedRevision }),
      });
      if (isRefusal(r)) expect.fail(r.message);
      return r;
    };

    it('a refusal: memory says the gate is closed, another instance opened it', async () => {
      const [mine, theirs] = [foldingStore(await SqlEventStore.open(t.db)), foldingStore(await SqlEventStore.open(t.db))];
      const stream = uniqueStream('gate');
      await pass(mine, stream, 'open');
      await pass(mine, stream, 'close');
      await pass(theirs, stream, 'open');
      const passed = await pass(mine, stream, 'pass');
      expect(passed.events.map((e) => e.type)).to.deep.equal(['Passed']);
      expect(passed.revision).to.equal(3);
    });

    it('nothing to do: memory says the gate is open, another instance closed it', async () => {
      const [mine, theirs] = [foldingStore(await SqlEventStore.open(t.db)), foldingStore(await SqlEventStore.open(t.db))];
      const stream = uniqueStream('gate');
      await pass(mine, stream, 'open');
      await pass(theirs, stream, 'close');
      const opened = await pass(mine, stream, 'open');
      expect(opened.events.map((e) => e.type)).to.deep.equal(['Opened']);
      expect((await mine.readStream(stream)).map((e) => e.type)).to.deep.equal(['Opened', 'Closed', 'Opened']);
    });

    it('a clash with the revision the client read: memory has not reached it yet', async () => {
      const [mine, theirs] = [foldingStore(await SqlEventStore.open(t.db)), foldingStore(await SqlEventStore.open(t.db))];
      const stream = uniqueStream('gate');
      await pass(mine, stream, 'open');
      await pass(theirs, stream, 'close');
      const opened = await pass(mine, stream, 'open', 1);
      expect(opened.revision).to.equal(2);
    });
  });

  it(`at most ${FOLDS_KEPT} streams are kept: the least recently used is read whole again`, async () => {
    const { store, reads } = readsRecorded(await SqlEventStore.open(t.db));
    const [first, second] = [uniqueStream('notes'), uniqueStream('notes')];
    await note(depsOf(store), first, 'first');
    await note(depsOf(store), second, 'second');
    // Streams folded since: `second` is the oldest but one of FOLDS_KEPT, `first` the one too many.
    for (let i = 0; i < FOLDS_KEPT - 1; i++) rememberFolded(store, uniqueStream('others'), notes, { state: [], revision: 0 });
    expect((await readFolded(store, notesIn(second), notes)).state).to.deep.equal(['second']);
    expect((await readFolded(store, notesIn(first), notes)).state).to.deep.equal(['first']);
    expect(reads.slice(-2)).to.deep.equal([
      { from: 1, got: 0 },
      { from: 0, got: 1 },
    ]);
  });

  it('a state too large to keep (over 256 KiB) is read and folded whole each time', async () => {
    const { store, reads } = readsRecorded(await SqlEventStore.open(t.db));
    const stream = uniqueStream('notes');
    await note(depsOf(store), stream, 'a'.repeat(150_000));
    await note(depsOf(store), stream, 'b'.repeat(150_000));
    const folded = await readFolded(store, notesIn(stream), notes);
    expect(folded.revision).to.equal(1);
    expect(folded.state.map((s) => s.length)).to.deep.equal([150_000, 150_000]);
    expect(reads.at(-1)).to.deep.equal({ from: 0, got: 2 });
  });

  it('a state that grows past 256 KiB a little at a time stops being kept: each command after reads it whole', async () => {
    const { store, reads } = readsRecorded(await SqlEventStore.open(t.db));
    const stream = uniqueStream('notes');
    for (let i = 0; i < 20; i++) await note(depsOf(store), stream, `${i}:`.padEnd(15_000, 'x'));
    // Eighteen notes are 270,000 characters: from the nineteenth on, each command reads every note before it.
    expect(reads.slice(-2)).to.deep.equal([
      { from: 0, got: 18 },
      { from: 0, got: 19 },
    ]);
  });
});
