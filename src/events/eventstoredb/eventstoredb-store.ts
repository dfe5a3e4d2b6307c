import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  NO_STREAM,
  StreamNotFoundError,
  WrongExpectedVersionError as EsWrongExpectedVersionError,
  type AllStreamRecordedEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type ReadStreamOptions as EsReadStreamOptions,
  type StreamingRead,
} from '@eventstore/db-client';
import type { AppendResult, ExpectedRevision, NewEvent, RecordedEvent } from '../envelope.js';
import { WrongExpectedVersionError } from '../errors.js';
import { linkBatch } from '../hash-chain.js';
import { START, type Position } from '../position.js';
import type { EventStore, ReadAllOptions, ReadStreamOptions, Subscription } from '../store.js';
import {
  isAfter,
  isSameBatch,
  isSystemEventType,
  readFrom,
  satisfies,
  toEventData,
  toPosition,
  toRecordedEvent,
  toRevision,
} from './mapping.js';

const DEFAULT_PAGE = 1000;
/** Backward page when looking for the newest event of ours among EventStoreDB's own. */
const HEAD_PAGE = 100;
/** Reads and appends a loose expectation ('any', 'stream_exists') may lose to other writers before giving up. */
const APPEND_ATTEMPTS = 5;
const RESUBSCRIBE_MIN_MS = 100;
const RESUBSCRIBE_MAX_MS = 5000;

type Feed<T> = AsyncIterable<T> & { close(): Promise<void> };

/**
 * The event store on EventStoreDB / KurrentDB. Revisions and positions are EventStoreDB's own;
 * the hash chain is kept by appending at the exact revision the previous link was read from.
 */
export class EventStoreDbStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  private readonly feeds = new Set<Feed<unknown>>();

  constructor(private readonly client: EventStoreDBClient) {}

  /** The client connects on its first call, so a wrong address shows there, not here. */
  static connect(connectionString: string): EventStoreDbStore {
    return new EventStoreDbStore(EventStoreDBClient.connectionString(connectionString));
  }

  async appendToStream(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError('appendToStream needs at least one event');
    for (let attempt = 1; ; attempt++) {
      const last = await this.lastEvent(streamId);
      const actual = last ? last.revision : 'no_stream';
      const earlier = last ? await this.alreadyAppended(streamId, events, last) : null;
      if (earlier) return earlier;
      // A strict expectation that lost a race to another writer fails here, on the fresh read;
      // a loose one goes round again, a few times.
      if (!satisfies(expected, actual) || attempt > APPEND_ATTEMPTS) throw new WrongExpectedVersionError(streamId, expected, actual);
      const appended = await this.appendAfter(streamId, events, last);
      if (appended) return appended;
    }
  }

  /**
   * Appends at exactly the revision `last` was read at, so nobody's event slips between the
   * link and the event it hashes. Answers null when someone did.
   */
  private async appendAfter(streamId: string, events: readonly NewEvent[], last: RecordedEvent | null): Promise<AppendResult | null> {
    const first = last ? last.revision + 1 : 0;
    const linked = linkBatch(streamId, first, events, last?.metadata.hash ?? null);
    try {
      const r = await this.client.appendToStream(streamId, toEventData(events, linked), {
        expectedRevision: last ? BigInt(last.revision) : NO_STREAM,
      });
      // success is false only on a connection made with throwOnAppendFailure=false.
      if (!r.success) return null;
      return {
        nextExpectedRevision: toRevision(r.nextExpectedRevision),
        position: r.position ? toPosition(r.position) : await this.positionOf(streamId, r.nextExpectedRevision),
      };
    } catch (e) {
      if (e instanceof EsWrongExpectedVersionError) return null;
      throw e;
    }
  }

  /**
   * A retry whose first attempt committed (its answer was lost) finds its batch at the end of
   * the stream and gets the first answer again. EventStoreDB itself recognises a retry only
   * at the same expected revision, which our fresh read no longer is.
   */
  private async alreadyAppended(streamId: string, events: readonly NewEvent[], last: RecordedEvent): Promise<AppendResult | null> {
    if (last.metadata.eventId !== events[events.length - 1]!.metadata.eventId || last.revision < events.length - 1) return null;
    const tail = (await this.readBackwards(streamId, events.length)).reverse();
    return isSameBatch(tail, events) ? { nextExpectedRevision: last.revision, position: last.position } : null;
  }

  private async lastEvent(streamId: string): Promise<RecordedEvent | null> {
    return (await this.readBackwards(streamId, 1))[0] ?? null;
  }

  private async readBackwards(streamId: string, maxCount: number): Promise<RecordedEvent[]> {
    return this.readStreamWith(streamId, { direction: BACKWARDS, fromRevision: END, maxCount });
  }

  /** Some servers answer an append without its position (a deduplicated retry); the event itself has it. */
  private async positionOf(streamId: string, revision: bigint): Promise<Position> {
    const [event] = await this.readStreamWith(streamId, { direction: FORWARDS, fromRevision: revision, maxCount: 1 });
    if (!event) throw new Error(`stream ${streamId} has no event at revision ${revision} just appended`);
    return event.position;
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    return this.readStreamWith(streamId, {
      direction: FORWARDS,
      fromRevision: BigInt(options.fromRevision ?? 0),
      ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
    });
  }

  private async readStreamWith(streamId: string, options: EsReadStreamOptions): Promise<RecordedEvent[]> {
    try {
      const resolved = await collect(this.client.readStream(streamId, { ...options, resolveLinkTos: false }));
      return resolved.flatMap((r) => (r.event ? [toRecordedEvent(r.event)] : []));
    } catch (e) {
      if (e instanceof StreamNotFoundError) return [];
      throw e;
    }
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? DEFAULT_PAGE;
    const found: RecordedEvent[] = [];
    let cursor = options.after ?? START;
    while (found.length < maxCount) {
      // One more than needed: a read from a position starts with the event at it, already answered.
      const want = maxCount - found.length + 1;
      const page = await collect(
        this.client.readAll({ fromPosition: readFrom(cursor), maxCount: want, direction: FORWARDS, resolveLinkTos: false }),
      );
      for (const { event } of page) {
        if (!event || !isAfter(event.position, cursor)) continue;
        cursor = toPosition(event.position);
        if (isSystemEventType(event.type)) continue;
        found.push(toRecordedEvent(event));
        if (found.length === maxCount) break;
      }
      if (page.length < want) break;
    }
    return found;
  }

  subscribeToAll(options: { readonly after?: Position } = {}): Subscription {
    return this.follow(options.after ?? START, toRecordedEvent);
  }

  async headPosition(): Promise<Position | null> {
    let cursor: Position | null = null;
    for (;;) {
      const page: AllStreamResolvedEvent[] = await collect(
        this.client.readAll({
          fromPosition: cursor ?? END,
          maxCount: HEAD_PAGE,
          direction: BACKWARDS,
          resolveLinkTos: false,
        }),
      );
      for (const { event } of page) {
        if (!event || (cursor && !isAfter(cursor, event.position))) continue;
        cursor = toPosition(event.position);
        if (!isSystemEventType(event.type)) return cursor;
      }
      if (page.length < HEAD_PAGE) return null;
    }
  }

  onAppended(listener: () => void): () => void {
    const feed = this.follow(END, () => undefined);
    void (async () => {
      for await (const _ of feed) listener();
    })().catch(() => undefined);
    return () => {
      void feed.close();
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.feeds].map((f) => f.close()));
    await this.client.dispose();
  }

  private follow<T>(start: Position | typeof END, map: (e: AllStreamRecordedEvent) => T): Feed<T> {
    const feed = followAll(this.client, start, map);
    this.feeds.add(feed);
    return {
      [Symbol.asyncIterator]: () => feed[Symbol.asyncIterator](),
      close: async () => {
        this.feeds.delete(feed);
        await feed.close();
      },
    };
  }
}

/**
 * Our events on $all after `start`, live. A subscription that drops (error or end) is replaced by
 * one from the last event handed out, so consumers see neither a gap nor a repeat; only close()
 * ends the feed. Events are pulled with `for await`-style next() calls, one at a time.
 */
function followAll<T>(client: EventStoreDBClient, start: Position | typeof END, map: (e: AllStreamRecordedEvent) => T): Feed<T> {
  let closed = false;
  let current: AllStreamSubscription | null = null;
  let wake: (() => void) | null = null;

  async function* feed(): AsyncGenerator<T> {
    let after = start;
    let drops = 0;
    while (!closed) {
      const sub = client.subscribeToAll({
        fromPosition: after === END ? END : readFrom(after),
        filter: excludeSystemEvents(),
        resolveLinkTos: false,
      });
      current = sub;
      const resolved = sub[Symbol.asyncIterator]();
      try {
        for (;;) {
          // Only the client's failures count as a drop; a consumer's or map's error ends the feed.
          const next = await resolved.next().catch(() => null);
          if (!next || next.done) break;
          const e = next.value.event;
          if (!e || isSystemEventType(e.type) || (after !== END && !isAfter(e.position, after))) continue;
          after = toPosition(e.position);
          drops = 0;
          yield map(e);
        }
      } finally {
        current = null;
        await Promise.allSettled([sub.unsubscribe(), resolved.return?.()]);
      }
      if (closed) return;
      drops++;
      await pause(Math.min(RESUBSCRIBE_MAX_MS, RESUBSCRIBE_MIN_MS * 2 ** drops));
    }
  }

  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });
  }

  const iterator = feed();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close: async () => {
      closed = true;
      wake?.();
      // Ends a next() waiting for the server, so return() below is not queued behind it forever.
      await current?.unsubscribe().catch(() => undefined);
      await iterator.return(undefined);
    },
  };
}

async function collect<E>(read: StreamingRead<E>): Promise<E[]> {
  const all: E[] = [];
  for await (const e of read) all.push(e);
  return all;
}
