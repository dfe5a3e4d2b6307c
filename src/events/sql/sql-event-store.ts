import { readFile } from 'node:fs/promises';
import type { SqlDb, SqlExecutor } from '../../db/sql.js';
import type { AppendResult, EventMetadata, ExpectedRevision, JsonObject, NewEvent, RecordedEvent } from '../envelope.js';
import { WrongExpectedVersionError } from '../errors.js';
import { linkBatch } from '../hash-chain.js';
import { START, type Position } from '../position.js';
import type { EventStore, ReadAllOptions, ReadStreamOptions, Subscription } from '../store.js';
import { pollingSubscription } from '../polling-subscription.js';
import * as q from './queries.js';

const UNIQUE_VIOLATION = '23505';
const DEFAULT_PAGE = 1000;

type EventRow = {
  stream_id: string;
  revision: string;
  commit: string;
  prepare: string;
  type: string;
  data: JsonObject;
  metadata: EventMetadata;
};

/** The event store on PostgreSQL or PGlite: one schema (schema.sql), one set of queries. */
export class SqlEventStore implements EventStore {
  readonly kind: 'postgres' | 'pglite';

  private constructor(private readonly db: SqlDb) {
    this.kind = db.kind;
  }

  static async open(db: SqlDb): Promise<SqlEventStore> {
    await db.exec(await readFile(new URL('./schema.sql', import.meta.url), 'utf8'));
    return new SqlEventStore(db);
  }

  async appendToStream(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError('appendToStream needs at least one event');
    try {
      return await this.db.transaction((tx) => this.appendIn(tx, streamId, events, expected));
    } catch (e) {
      // 'any' lost a race to create the stream; the stream exists now, so a second try locks it.
      if (expected === 'any' && isUniqueViolation(e) && e.constraint === 'streams_pkey') {
        return this.db.transaction((tx) => this.appendIn(tx, streamId, events, expected));
      }
      // A retried append whose first attempt committed (its answer was lost) is recognised by its
      // event ids and answered as before, as EventStoreDB does.
      const earlier = await this.alreadyAppended(streamId, events);
      if (earlier) return earlier;
      if (isUniqueViolation(e) && e.constraint !== 'events_event_id_unique') {
        throw new WrongExpectedVersionError(streamId, expected, await this.currentRevision(streamId));
      }
      throw e;
    }
  }

  /**
   * Appends inside a caller's transaction on the same database, so the events commit or roll back
   * with the caller's other writes (an operator's skip moves a checkpoint with its record). The
   * caller calls serializeUsing() before it writes anything else, or its transaction id may order
   * its events before those of a concurrent append to the same stream (see queries.serializeStream).
   */
  appendUsing(tx: SqlExecutor, streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.appendIn(tx, streamId, events, expected);
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
  ): Promise<AppendResult> {
    await tx.query(q.serializeStream, [streamId]);
    const head = (await tx.query<{ revision: string; last_hash: string }>(q.lockStream, [streamId])).rows[0];
    const actual = head ? Number(head.revision) : 'no_stream';
    if (!satisfies(expected, actual)) throw new WrongExpectedVersionError(streamId, expected, actual);

    const first = head ? Number(head.revision) + 1 : 0;
    const last = first + events.length - 1;
    const linked = linkBatch(streamId, first, events, head?.last_hash ?? null);
    const lastHash = linked[linked.length - 1]!.hash;
    if (head) {
      const moved = await tx.query(q.advanceStream, [streamId, head.revision, last, lastHash]);
      if (moved.rowCount !== 1) throw new WrongExpectedVersionError(streamId, expected, actual);
    } else {
      // A concurrent creator makes this a unique violation, mapped to the typed error above.
      await tx.query(q.createStream, [streamId, last, lastHash]);
    }
    const inserted = await tx.query<{ commit: string; prepare: string; revision: string }>(q.insertEvents, [
      streamId,
      events.map((_, i) => first + i),
      events.map((e) => e.metadata.eventId),
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(e.data)),
      linked.map((m) => JSON.stringify(m)),
    ]);
    await tx.query(q.notifyAppended);
    const lastRow = inserted.rows.find((r) => Number(r.revision) === last)!;
    return { nextExpectedRevision: last, position: toPosition(lastRow) };
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
    return r.rows.map(toRecorded);
  }

  readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.readAllUsing(this.db, options);
  }

  /**
   * readAll inside a caller's transaction on the same database. PGlite has one connection, so a
   * transaction that also reads the log (replay's swap) must read through it.
   */
  async readAllUsing(executor: SqlExecutor, options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? START;
    const r = await executor.query<EventRow>(q.readAll, [
      String(after.commit < 0n ? 0n : after.commit),
      String(after.prepare),
      options.maxCount ?? DEFAULT_PAGE,
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

  onAppended(listener: () => void): () => void {
    const stop = this.db.listen('es_appended', listener);
    return () => {
      void stop.then((s) => s()).catch(() => undefined);
    };
  }

  /** The database belongs to whoever opened it (the read models share it), so it stays open. */
  async close(): Promise<void> {}
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
