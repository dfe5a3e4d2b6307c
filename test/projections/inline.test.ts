import { expect } from 'chai';
import type { Row, SqlDb } from '../../src/db/sql.js';
import { WrongExpectedVersionError } from '../../src/events/errors.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { ProjectionEngine, ProjectionTimeoutError } from '../../src/projections/engine.js';
import { logProjector, writes, type Projector } from '../../src/projections/projector.js';
import { inlineProjection } from '../../src/projections/inline.js';
import { replay } from '../../src/projections/replay.js';
import { streamHeadsProjector } from '../../src/projections/stream-heads/stream-heads.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent, uniqueStream } from '../support/events.js';
import { assertExactlyOnceInStreamOrder, recordedRows, recordingProjector, startInline } from '../support/projectors.js';

describe(`inline projection: read models written in the append's transaction (${mainBackend})`, function () {
  this.timeout(120_000);
  let t: TestDatabase;
  /** The log as the engine reads it; `store` appends, writing the inline read models once start('inline') made them so. */
  let log: SqlEventStore;
  let store: SqlEventStore;
  const engines: ProjectionEngine[] = [];
  const seen = recordingProjector('seen_inline');

  beforeEach(async () => {
    t = await openTestDatabase();
    store = log = await SqlEventStore.open(t.db);
  });
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.stop();
    await t.drop();
  });

  /** The engine's error log lines, as the service's logger would get them. */
  const errors: unknown[][] = [];
  const logger = { info: () => undefined, warn: () => undefined, error: (...args: unknown[]) => void errors.push(args) };

  async function start(mode: 'inline' | 'async', projectors = [seen]): Promise<ProjectionEngine> {
    errors.length = 0;
    const options = { idlePollMs: 20, logger };
    if (mode === 'inline') {
      const started = await startInline(t.db, log, projectors, options);
      engines.push(started.engine);
      store = started.store;
      return started.engine;
    }
    const engine = new ProjectionEngine({ db: t.db, store: log, projectors, ...options });
    engines.push(engine);
    store = log;
    await engine.start();
    return engine;
  }

  async function appendTo(stream: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const e = newEvent('Placed', { i });
      ids.push(e.metadata.eventId);
      await store.appendToStream(stream, [e], 'any');
    }
    return ids;
  }

  it('an append answers with its rows already committed: nothing to wait for, no checkpoint written per append', async () => {
    await start('inline');
    const before = await t.db.query<{ updated_at: Date }>(
      `SELECT updated_at FROM rm.projection_checkpoints WHERE projector = 'seen_inline'`,
    );
    const stream = uniqueStream('order');
    const ids = await appendTo(stream, 3);
    expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_inline'), ids)).to.equal(null);
    const after = await t.db.query<{ updated_at: Date }>(
      `SELECT updated_at FROM rm.projection_checkpoints WHERE projector = 'seen_inline'`,
    );
    expect(after.rows).to.deep.equal(before.rows);
  });

  it('an event a read model refuses is refused with its append: nothing is stored, the stream is unchanged', async () => {
    const refusing = logProjector({
      name: 'refusing',
      version: 1,
      schemaSql: 'CREATE TABLE IF NOT EXISTS refusing (n int)',
      onAny: async (_tx, e) => {
        if (e.type === 'Poison') throw new Error('cannot apply');
      },
    });
    await start('inline', [seen, refusing]);
    const stream = uniqueStream('order');
    const ids = await appendTo(stream, 2);
    const refused = await store.appendToStream(stream, [newEvent('Poison', {})], 1).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(Error);
    expect((await store.readStream(stream)).map((e) => e.type)).to.deep.equal(['Placed', 'Placed']);
    expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_inline'), ids)).to.equal(null);
    // The stream moves on from where it was.
    await store.appendToStream(stream, [newEvent('Placed', { i: 2 })], 1);
  });

  it('a read model of statements alone refusing an event refuses its append, though its statement went out unanswered', async () => {
    // Its statements and stream_heads' go out without waiting for each other; seen_inline's handler waits for its answers.
    const refusing = logProjector({
      name: 'refusing_statement',
      version: 1,
      schemaSql: 'CREATE TABLE IF NOT EXISTS refusing_statement (type text NOT NULL)',
      onAny: writes((e) => [['INSERT INTO refusing_statement (type) VALUES ($1)', [e.type === 'Poison' ? null : e.type]]]),
    });
    await start('inline', [streamHeadsProjector, refusing, seen]);
    const stream = uniqueStream('order');
    const ids = await appendTo(stream, 2);
    const refused = await store.appendToStream(stream, [newEvent('Poison', {})], 1).catch((e: unknown) => e);
    expect((refused as { code?: string }).code).to.equal('23502'); // the refusal itself, not the aborted transaction after it
    expect(errors.map(([fields]) => (fields as { projector: string }).projector)).to.deep.equal(['refusing_statement']);
    expect((await store.readStream(stream)).map((e) => e.type)).to.deep.equal(['Placed', 'Placed']);
    const rows = await t.db.query<{ event_count: number }>('SELECT event_count FROM rm.stream_heads WHERE stream_id = $1', [stream]);
    expect(rows.rows.map((r) => Number(r.event_count))).to.deep.equal([2]);
    expect((await t.db.query('SELECT type FROM rm.refusing_statement')).rows).to.have.length(2);
    expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_inline'), ids)).to.equal(null);
    await store.appendToStream(stream, [newEvent('Placed', { i: 2 })], 1);
    expect((await t.db.query('SELECT type FROM rm.refusing_statement')).rows).to.have.length(3);
  });

  /** A read model of statements alone: each event's type, one row. */
  const typesSeen = logProjector({
    name: 'types_seen',
    version: 1,
    schemaSql: 'CREATE TABLE IF NOT EXISTS types_seen (type text NOT NULL)',
    onAny: writes((e) => [['INSERT INTO types_seen (type) VALUES ($1)', [e.type]]]),
  });

  it('read models of statements alone go out before the append has answered, joined as one statement; one whose handler waits, after it', async () => {
    // What each of the transactions' statements did, in order: its first words, sent or answered.
    const order: string[] = [];
    const words = (text: string) => text.trim().split(/\s+/).slice(0, 3).join(' ');
    const watched = Object.create(t.db) as SqlDb;
    watched.transaction = (fn, options) =>
      t.db.transaction(
        (tx) =>
          fn({
            query: <R extends Row = Row>(text: string, params?: readonly unknown[]) => {
              order.push(`sent ${words(text)}`);
              return tx.query<R>(text, params).finally(() => order.push(`answered ${words(text)}`));
            },
          }),
        options,
      );
    const watchedLog = await SqlEventStore.open(watched);
    const { engine, store } = await startInline(watched, watchedLog, [streamHeadsProjector, typesSeen]);
    engines.push(engine);
    order.length = 0;
    const stream = uniqueStream('order');
    await store.appendToStream(stream, [newEvent('Placed')], 'no_stream');
    expect(order).to.deep.equal([
      'sent WITH head AS',
      'sent WITH dss_joined0_0 AS',
      'answered WITH head AS',
      'answered WITH dss_joined0_0 AS',
    ]);
    const heads = await t.db.query('SELECT event_count::int AS n FROM rm.stream_heads WHERE stream_id = $1', [stream]);
    expect(heads.rows).to.deep.equal([{ n: 1 }]);
    expect((await t.db.query('SELECT type FROM rm.types_seen')).rows).to.deep.equal([{ type: 'Placed' }]);

    await engine.stop();
    const waiting = await startInline(watched, watchedLog, [typesSeen, seen]);
    engines.push(waiting.engine);
    await waiting.store.readStream(stream); // it knows the stream's head, as \`store\` did
    order.length = 0;
    await waiting.store.appendToStream(stream, [newEvent('Shipped')], 0);
    expect(order.slice(0, 3)).to.deep.equal(['sent WITH head AS', 'answered WITH head AS', 'sent INSERT INTO seen_inline']);
    expect(order).to.include('sent INSERT INTO types_seen');
  });

  it('an append whose stream head moved under it fails as a conflict, and the rows sent behind it roll back with it, logging no refusal', async () => {
    const engine = await start('inline', [streamHeadsProjector, typesSeen]);
    const stream = uniqueStream('order');
    // Another instance on the same database, its read models inline as its own engine would make them.
    const other = (await SqlEventStore.open(t.db)).withInline(inlineProjection([streamHeadsProjector, typesSeen], engine.schema));
    await store.appendToStream(stream, [newEvent('Placed')], 'no_stream');
    await other.appendToStream(stream, [newEvent('Shipped')], 0);
    // `store` still holds revision 0 as the head: its append compares and sets it, in one statement.
    const clash = await store.appendToStream(stream, [newEvent('Cancelled')], 0).catch((e: unknown) => e);
    expect(clash).to.be.instanceOf(WrongExpectedVersionError);
    expect((clash as WrongExpectedVersionError).actual).to.equal(1);
    expect((await store.readStream(stream)).map((e) => e.type)).to.deep.equal(['Placed', 'Shipped']);
    expect((await t.db.query('SELECT type FROM rm.types_seen ORDER BY type')).rows).to.deep.equal([
      { type: 'Placed' },
      { type: 'Shipped' },
    ]);
    const heads = await t.db.query<{ event_count: number }>('SELECT event_count::int FROM rm.stream_heads WHERE stream_id = $1', [stream]);
    expect(heads.rows).to.deep.equal([{ event_count: 2 }]);
    // The read models' statements failed only because the append did: none of them refused the event.
    expect(errors).to.deep.equal([]);
  });

  it('a replay while appends run swaps in read models holding every event exactly once', async function () {
    if (mainBackend === 'pglite') this.skip(); // one connection: appends cannot run during the swap's transaction there
    await start('inline');
    const ids = await appendTo(uniqueStream('order'), 50);
    let writing = true;
    const writers = Array.from({ length: 4 }, async () => {
      const stream = uniqueStream('order');
      while (writing) ids.push(...(await appendTo(stream, 1)));
    });
    const rebuilt = await replay({ db: t.db, store: await SqlEventStore.open(t.db), projectors: [seen], batchSize: 10 });
    writing = false;
    await Promise.all(writers);
    expect(rebuilt.events).to.be.greaterThan(50);
    expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_inline'), ids)).to.equal(null);
  });

  it('stream_heads written event by event inline equals its set-based rebuild by replay', async () => {
    await start('inline', [streamHeadsProjector]);
    const streams = [uniqueStream('order'), uniqueStream('order'), uniqueStream('invoice')];
    for (let i = 0; i < 30; i++) {
      const type = i % 3 ? 'Shipped' : 'Placed';
      const occurredAt = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
      await store.appendToStream(streams[i % streams.length]!, [newEvent(type, { i }, { occurredAt })], 'any');
    }
    const rows = () =>
      t.db.query(
        `SELECT stream_id, category, revision::int, event_count::int, first_type, last_type, created_at::text, last_occurred_at::text
         FROM rm.stream_heads ORDER BY stream_id`,
      );
    const inline = (await rows()).rows;
    expect(inline).to.have.length(3);
    await replay({ db: t.db, store: await SqlEventStore.open(t.db), projectors: [streamHeadsProjector] });
    expect((await rows()).rows).to.deep.equal(inline);
  });

  it('a read model that follows the log is applied by the engine in log order beside the inline ones, never by an append; a command does not wait for it', async function () {
    if (mainBackend === 'pglite') this.skip(); // one connection: the held batch holds every append there
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const following: Projector = { ...recordingProjector('seen_following', { before: () => held }), followsLog: true };
    const engine = await start('inline', [seen, following]);
    const stream = uniqueStream('order');
    const ids = await appendTo(stream, 3);
    const last = (await store.readStream(stream)).at(-1)!.position;
    expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_inline'), ids)).to.equal(null);
    // Its handler is held: the appends wrote none of its rows.
    expect(await recordedRows(t.db, 'seen_following')).to.deep.equal([]);
    await engine.waitFor(last, { eventTypes: ['Placed'], timeoutMs: 1000 });
    const waited = await engine.waitFor(last, { timeoutMs: 300 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(waited).to.be.instanceOf(ProjectionTimeoutError);
    expect((waited as Error).message)
      .to.include('seen_following')
      .and.not.include('seen_inline');
    release();
    await engine.waitFor(last);
    expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_following'), ids)).to.equal(null);
    const inline = Object.fromEntries((await engine.status()).map((s) => [s.projector, s.inline]));
    expect(inline).to.deep.equal({ seen_inline: true, seen_following: false });
  });

  it('switching async → inline catches up the events the async projector had not applied, once; inline → async goes on after them', async () => {
    const stream = uniqueStream('order');
    const asyncEngine = await start('async');
    const first = await appendTo(stream, 3);
    await asyncEngine.waitFor((await store.readStream(stream)).at(-1)!.position);
    await asyncEngine.stop();
    const unprojected = await appendTo(stream, 2);

    await start('inline');
    const inline = await appendTo(stream, 2);
    expect(assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_inline'), [...first, ...unprojected, ...inline])).to.equal(null);

    for (const e of engines.splice(0)) await e.stop();
    const again = await start('async');
    const later = await appendTo(stream, 2);
    await again.waitFor((await store.readStream(stream)).at(-1)!.position);
    expect(
      assertExactlyOnceInStreamOrder(await recordedRows(t.db, 'seen_inline'), [...first, ...unprojected, ...inline, ...later]),
    ).to.equal(null);
  });
});
