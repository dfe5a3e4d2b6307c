import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { CoalescedNotify } from '../../db/coalesced-notify.js';
import type { SqlDb, SqlExecutor, TransactionOptions } from '../../db/sql.js';
import type { AppendResult, EventMetadata, ExpectedRevision, JsonObject, NewEvent, RecordedEvent, UnpositionedEvent } from '../envelope.js';
import { WrongExpectedVersionError } from '../errors.js';
import { linkBatch } from '../hash-chain.js';
import { comparePositions, START, type Position } from '../position.js';
import type { EventStore, ReadAllOptions, ReadStreamOptions, Subscription } from '../store.js';
import { pollingSubscription } from '../polling-subscription.js';
import { GroupCommit } from './group-commit.js';
import { StreamHeads, type StreamHead } from './stream-heads.js';
import * as q from './queries.js';

const UNIQUE_VIOLATION = '23505';
const DEADLOCK = '40P01';
const SERIALIZATION_FAILURE = '40001';
const MAX_ATTEMPTS = 4;
const DEFAULT_PAGE = 1000;
const APPENDED_CHANNEL = 'es_appended';

type EventRow = {
  stream_id: string;
  revision: string;
  commit: string;
  prepare: string;
  type: string;
  data: JsonObject;
  metadata: EventMetadata;
};

type PositionRow = { commit: string; prepare: string; revision: string };

/** Read models that run inside every appending transaction (SqlEventStore.withInline). */
export type InlineProjection = {
  /**
   * Runs first in the transaction, before the append takes its transaction id: a statement without
   * parameters, so it travels with BEGIN (TransactionOptions.prelude).
   */
  readonly prelude: string;
  /**
   * Sends the rows of events being appended, in the same transaction, before the append has
   * answered, so that the append, the rows and COMMIT leave in one write: null, having sent
   * nothing, when a handler they reach must read the event's position or an answer (apply then).
   */
  sendAhead(tx: SqlExecutor, events: readonly UnpositionedEvent[]): Promise<void> | null;
  /**
   * Writes the rows of the events just appended, in the same transaction. It may leave statements
   * in flight: the transaction's commit waits for them, and their failure fails it (SqlExecutor).
   */
  apply(tx: SqlExecutor, events: readonly RecordedEvent[]): Promise<void>;
};

type Appended = { readonly result: AppendResult; readonly head: StreamHead };

/** An append sent in a transaction: its answer is read once the transaction has committed. */
type Sent = { readonly appended: Promise<Appended> };

/** An append whose stream head the store knows (null: a stream to create), as group commit takes it. */
type KnownAppend = {
  readonly key: string;
  readonly events: readonly NewEvent[];
  readonly expected: ExpectedRevision;
  readonly head: StreamHead | null;
};

/** An append linked to its head: its revisions and hashes, ready for a statement. */
type Linked = KnownAppend & { readonly first: number; readonly metadata: EventMetadata[] };

/**
 * Batches in flight at once per store: enough to keep a second connection busy while one batch waits
 * on its commit or a lock, few enough that appends arriving meanwhile gather into the next batch.
 * With inline read models too: a batch's read-model statements travel with its append in one write,
 * so commands that share a batch cost fewer statements than commands alone (docs/decisions.md, "Read models").
 */
const GROUP_IN_FLIGHT = 2;
const GROUP_MAX = 64;

/**
 * Appends seen by this process, per database: every store opened on one database hears the
 * others' at once, without a round trip through the server. `sender` goes with their NOTIFY, so
 * these listeners do not hear the same appends a second time from the server.
 */
type LocalListeners = { readonly sender: string; readonly listeners: Set<(position?: Position) => void> };
const localListeners = new WeakMap<SqlDb, LocalListeners>();

/** The event store on PostgreSQL or PGlite: one schema (schema.sql), one set of queries. */
export class SqlEventStore implements EventStore {
  readonly kind: 'postgres' | 'pglite';
  private readonly heads = new StreamHeads();
  private readonly local: LocalListeners;
  /** Only a server has other instances to tell. */
  private readonly notify: CoalescedNotify | null;
  private readonly group = new GroupCommit<KnownAppend, Appended>((items) => this.writeGroup(items), {
    maxInFlight: GROUP_IN_FLIGHT,
    maxBatch: GROUP_MAX,
  });

  private constructor(
    private readonly db: SqlDb,
    /** The read models this store's appends write in their own transaction. */
    private readonly inline: InlineProjection | undefined,
  ) {
    this.kind = db.kind;
    let local = localListeners.get(db);
    if (!local) localListeners.set(db, (local = { sender: randomUUID(), listeners: new Set() }));
    this.local = local;
    this.notify = db.kind === 'postgres' ? new CoalescedNotify(db, APPENDED_CHANNEL, local.sender) : null;
  }

  static async open(db: SqlDb): Promise<SqlEventStore> {
    await db.exec(await readFile(new URL('./schema.sql', import.meta.url), 'utf8'));
    return new SqlEventStore(db, undefined);
  }

  /**
   * The same log, for appends that write `inline`'s read models inside their own transaction (the
   * log and the read models share this database), so an event and its rows commit together. Taken
   * once the projection engine has switched those read models inline (ProjectionEngine.start).
   */
  withInline(inline: InlineProjection): SqlEventStore {
    return new SqlEventStore(this.db, inline);
  }

  /** An appending transaction's options: the inline read models' prelude travels with its BEGIN. */
  private get inlineTransaction(): TransactionOptions {
    const prelude = this.inline?.prelude;
    return prelude ? { prelude } : {};
  }

  async appendToStream(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError('appendToStream needs at least one event');
    for (let attempt = 1; ; attempt++) {
      try {
        const { result, head } = await this.appendOnce(streamId, events, expected);
        this.heads.remember(streamId, head);
        this.announce(result.position);
        return result;
      } catch (e) {
        // Inline read models can deadlock with another append's; the loser runs again on its own.
        if (isTransactionConflict(e) && attempt < MAX_ATTEMPTS) continue;
        const earlier = await this.answeredBefore(e, streamId, events);
        if (earlier) return earlier;
        throw await this.typed(e, streamId, expected);
      }
    }
  }

  /**
   * With the stream's head known (its revision and hash, from a read or an earlier append) the
   * append goes through group commit; otherwise one transaction reads the head under the stream's
   * lock, appends, and writes the inline read models.
   */
  private appendOnce(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<Appended> {
    const head = this.knownHead(streamId, expected);
    if (head === undefined) return this.inTransaction((tx) => this.appendIn(tx, streamId, events, expected, undefined));
    return this.group.submit({ key: streamId, events, expected, head });
  }

  /** One append alone: one statement, or its transaction with the inline read models. */
  private async appendKnown(a: KnownAppend): Promise<Appended> {
    if (!this.inline) return (await this.appendAt(this.db, a.key, a.events, a.expected, a.head)).appended;
    return this.inTransaction((tx) => this.appendIn(tx, a.key, a.events, a.expected, a.head));
  }

  /** An append's own transaction, with the inline read models' prelude; its answer once it committed. */
  private async inTransaction(send: (tx: SqlExecutor) => Promise<Sent>): Promise<Appended> {
    const { appended } = await this.db.transaction(send, this.inlineTransaction);
    return appended;
  }

  /**
   * Several appends in one statement and one commit, with the inline read models in the same
   * transaction. If anything fails but a head that moved (an event a read model refuses, a
   * duplicate event id, a deadlock), each append goes again alone, so it fails only its own writer.
   */
  private async writeGroup(items: readonly KnownAppend[]): Promise<Array<Appended | Error>> {
    if (items.length === 1) return [await this.appendKnown(items[0]!).catch(asError)];
    const linked = items.map((a) => this.link(a)).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    try {
      const inline = this.inline;
      const done = inline
        ? await this.db.transaction(async (tx) => {
            const written = await this.appendManyAt(tx, linked);
            const recorded = written.flatMap((w) => (w instanceof Error ? [] : w.recorded));
            recorded.sort((a, b) => comparePositions(a.position, b.position));
            await inline.apply(tx, recorded);
            return written;
          }, this.inlineTransaction)
        : await this.appendManyAt(this.db, linked);
      return items.map((a) => toAppended(done[linked.findIndex((l) => l.key === a.key)]!));
    } catch {
      return Promise.all(items.map((a) => this.appendKnown(a).catch(asError)));
    }
  }

  private link(a: KnownAppend): Linked {
    const first = a.head ? a.head.revision + 1 : 0;
    return { ...a, first, metadata: linkBatch(a.key, first, a.events, a.head?.hash ?? null) };
  }

  private async appendManyAt(
    executor: SqlExecutor,
    appends: readonly Linked[],
  ): Promise<Array<(Appended & { recorded: RecordedEvent[] }) | Error>> {
    const events = appends.flatMap((a) => a.events.map((e, i) => ({ a, e, revision: a.first + i, metadata: a.metadata[i]! })));
    const rows = (
      await executor.query<PositionRow & { stream_id: string }>(q.appendMany, [
        appends.map((a) => a.key),
        appends.map((a) => a.head?.revision ?? null),
        appends.map((a) => a.head?.hash ?? null),
        appends.map((a) => a.first + a.events.length - 1),
        appends.map((a) => a.metadata[a.metadata.length - 1]!.hash),
        events.map((x) => x.a.key),
        events.map((x) => x.revision),
        events.map((x) => x.e.metadata.eventId),
        events.map((x) => x.e.type),
        events.map((x) => JSON.stringify(x.e.data)),
        events.map((x) => JSON.stringify(x.metadata)),
      ])
    ).rows;
    return appends.map((a) => {
      const mine = rows.filter((r) => r.stream_id === a.key);
      if (mine.length !== a.events.length) return new WrongExpectedVersionError(a.key, a.expected, a.head ? a.head.revision : 'no_stream');
      return this.appended(a, mine);
    });
  }

  /**
   * A retried append whose first attempt committed (its answer was lost) is recognised by its
   * event ids and answered as before, as EventStoreDB does.
   */
  private async answeredBefore(e: unknown, streamId: string, events: readonly NewEvent[]): Promise<AppendResult | null> {
    return e instanceof WrongExpectedVersionError || isHeadMoved(e) || isUniqueViolation(e) ? this.alreadyAppended(streamId, events) : null;
  }

  private async typed(e: unknown, streamId: string, expected: ExpectedRevision): Promise<unknown> {
    // The head the append compared may have come from this process's memory: say where the stream really is.
    const clash =
      e instanceof WrongExpectedVersionError || isHeadMoved(e) || (isUniqueViolation(e) && e.constraint !== 'events_event_id_unique');
    return clash ? new WrongExpectedVersionError(streamId, expected, await this.currentRevision(streamId)) : e;
  }

  /**
   * Appends inside a caller's transaction on the same database, so the events commit or roll back
   * with the caller's other writes (an operator's skip moves a checkpoint with its record). The
   * caller calls serializeUsing() before it writes anything else, or its transaction id may order
   * its events before those of a concurrent append to the same stream (see queries.serializeStream).
   */
  async appendUsing(tx: SqlExecutor, streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    // The caller opened the transaction, so the inline prelude has not run in it yet.
    if (this.inline) await tx.query(this.inline.prelude);
    const { result } = await (await this.appendIn(tx, streamId, events, expected, undefined)).appended;
    // Not committed yet (the caller's transaction): readers hear of it without a position.
    this.announce();
    return result;
  }

  /** Waits for the stream's other appenders, in a transaction that has not written yet. */
  async serializeUsing(tx: SqlExecutor, streamId: string): Promise<void> {
    await tx.query(q.serializeStream, [streamId]);
  }

  private async appendIn(
    tx: SqlExecutor,
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
    known: StreamHead | null | undefined,
  ): Promise<Sent> {
    let head = known;
    if (head === undefined) {
      await tx.query(q.serializeStream, [streamId]);
      const row = (await tx.query<{ revision: string; last_hash: string }>(q.readHead, [streamId])).rows[0];
      head = row ? { revision: Number(row.revision), hash: row.last_hash } : null;
    }
    return this.appendAt(tx, streamId, events, expected, head);
  }

  /**
   * The compare-and-set append from a known head; inside a transaction, the inline read models'
   * statements follow it without waiting for its answer when they can (InlineProjection.sendAhead),
   * COMMIT behind them: one write and one round trip. A head that moved fails the statement
   * (es.head_moved) rather than insert nothing, so that what was sent behind it rolls back with it.
   */
  private async appendAt(
    executor: SqlExecutor,
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
    head: StreamHead | null,
  ): Promise<Sent> {
    const actual = head ? head.revision : 'no_stream';
    if (!satisfies(expected, actual)) throw new WrongExpectedVersionError(streamId, expected, actual);
    const a = this.link({ key: streamId, events, expected, head });
    const params: unknown[] = [
      streamId,
      a.first + events.length - 1,
      a.metadata[a.metadata.length - 1]!.hash,
      events.map((_, i) => a.first + i),
      events.map((e) => e.metadata.eventId),
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(e.data)),
      a.metadata.map((m) => JSON.stringify(m)),
    ];
    const inserted = head
      ? executor.query<PositionRow>(q.appendToHead, [...params, head.revision, head.hash])
      : executor.query<PositionRow>(q.appendToNewStream, params);
    const appended = inserted.then((r) => this.appended(a, r.rows));
    // In a transaction its failure is the transaction's, thrown at the commit; the caller reads it only after.
    appended.catch(() => undefined);
    const inline = executor === this.db ? undefined : this.inline;
    if (inline) await (inline.sendAhead(executor, unpositioned(a)) ?? inline.apply(executor, (await appended).recorded));
    return { appended };
  }

  /** What the statement's rows say of one append: its events as recorded, its result and new head. */
  private appended(a: Linked, rows: readonly PositionRow[]): Appended & { recorded: RecordedEvent[] } {
    const recorded = unpositioned(a).map((e): RecordedEvent => {
      const row = rows.find((r) => Number(r.revision) === e.revision)!;
      return { ...e, position: toPosition(row) };
    });
    const last = recorded[recorded.length - 1]!;
    return {
      result: { nextExpectedRevision: last.revision, position: last.position },
      head: { revision: last.revision, hash: last.metadata.hash },
      recorded,
    };
  }

  /** The head the writer expects, when this store knows it: null for a stream to create. */
  private knownHead(streamId: string, expected: ExpectedRevision): StreamHead | null | undefined {
    if (expected === 'no_stream') return null;
    if (typeof expected !== 'number') return undefined;
    const head = this.heads.get(streamId);
    return head?.revision === expected ? head : undefined;
  }

  /** Wakes this process's readers at once; other instances hear by a NOTIFY after the commit (CoalescedNotify). */
  private announce(position?: Position): void {
    for (const listener of this.local.listeners) listener(position);
    this.notify?.send();
  }

  private async alreadyAppended(streamId: string, events: readonly NewEvent[]): Promise<AppendResult | null> {
    const ids = events.map((e) => e.metadata.eventId);
    const rows = (await this.db.query<EventRow>(q.findEventsById, [ids]).catch(() => ({ rows: [] as EventRow[] }))).rows;
    if (rows.length !== ids.length || rows.some((r) => r.stream_id !== streamId)) return null;
    const found = rows.map(toRecorded);
    const sameOrder = found.every((e, i) => e.metadata.eventId === ids[i] && e.revision === found[0]!.revision + i);
    if (!sameOrder) return null;
    const lastEvent = found[found.length - 1]!;
    return { nextExpectedRevision: lastEvent.revision, position: lastEvent.position };
  }

  private async currentRevision(streamId: string): Promise<number | 'no_stream'> {
    const r = await this.db.query<{ revision: string }>('SELECT revision::text AS revision FROM es.streams WHERE stream_id = $1', [
      streamId,
    ]);
    return r.rows[0] ? Number(r.rows[0].revision) : 'no_stream';
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const r = await this.db.query<EventRow>(q.readStream, [streamId, options.fromRevision ?? 0, options.maxCount ?? null]);
    const events = r.rows.map(toRecorded);
    const last = events[events.length - 1];
    // Read to its end, the stream's last event is its head: the next append can compare-and-set it.
    if (last && (options.maxCount === undefined || events.length < options.maxCount)) {
      this.heads.remember(streamId, { revision: last.revision, hash: last.metadata.hash });
    }
    return events;
  }

  readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.readAllUsing(this.db, options);
  }

  /**
   * readAll inside a caller's transaction on the same database. PGlite has one connection, so a
   * transaction that also reads the log (replay's swap) must read through it.
   */
  readAllUsing(executor: SqlExecutor, options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.page(executor, q.readAll, options);
  }

  /**
   * Every committed event, also above the oldest running transaction, for a caller that holds
   * every appender off (see queries.readAllCommitted).
   */
  readAllCommittedUsing(executor: SqlExecutor, options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.page(executor, q.readAllCommitted, options);
  }

  private async page(executor: SqlExecutor, sql: (limit: number) => string, options: ReadAllOptions): Promise<RecordedEvent[]> {
    const after = options.after ?? START;
    const r = await executor.query<EventRow>(sql(options.maxCount ?? DEFAULT_PAGE), [
      String(after.commit < 0n ? 0n : after.commit),
      String(after.prepare),
    ]);
    return r.rows.map(toRecorded);
  }

  subscribeToAll(options: { after?: Position } = {}): Subscription {
    return pollingSubscription(this, options.after ?? START);
  }

  async headPosition(): Promise<Position | null> {
    const r = await this.db.query<{ commit: string; prepare: string }>(q.headPosition);
    return r.rows[0] ? toPosition(r.rows[0]) : null;
  }

  onAppended(listener: (position?: Position) => void): () => void {
    const { sender, listeners } = this.local;
    listeners.add(listener);
    // Other instances' appends arrive by NOTIFY; this process's are announced directly, and their
    // NOTIFY, heard again a few milliseconds later, made every reader look at the log once more.
    const stop =
      this.db.kind === 'postgres' ? this.db.listen(APPENDED_CHANNEL, (from) => (from === sender ? undefined : listener())) : null;
    return () => {
      listeners.delete(listener);
      void stop?.then((s) => s()).catch(() => undefined);
    };
  }

  /** The database belongs to whoever opened it (the read models share it), so it stays open. */
  async close(): Promise<void> {}
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/** An append's events as sent, before the log gives them positions. */
function unpositioned(a: Linked): UnpositionedEvent[] {
  return a.events.map((e, i) => ({ streamId: a.key, revision: a.first + i, type: e.type, data: e.data, metadata: a.metadata[i]! }));
}

/** The caller gets its result and head, not the events it already holds. */
function toAppended(w: (Appended & { recorded: RecordedEvent[] }) | Error): Appended | Error {
  return w instanceof Error ? w : { result: w.result, head: w.head };
}

function satisfies(expected: ExpectedRevision, actual: number | 'no_stream'): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return actual === 'no_stream';
    case 'stream_exists':
      return actual !== 'no_stream';
    default:
      return actual === expected;
  }
}

function isTransactionConflict(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === DEADLOCK || code === SERIALIZATION_FAILURE;
}

function isHeadMoved(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === q.HEAD_MOVED;
}

function isUniqueViolation(e: unknown): e is { code: string; constraint?: string } {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === UNIQUE_VIOLATION;
}

function toPosition(r: { commit: string; prepare: string }): Position {
  return { commit: BigInt(r.commit), prepare: BigInt(r.prepare) };
}

function toRecorded(r: EventRow): RecordedEvent {
  return {
    streamId: r.stream_id,
    revision: Number(r.revision),
    position: toPosition(r),
    type: r.type,
    data: r.data,
    metadata: r.metadata,
  };
}
