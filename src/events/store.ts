import type { AppendResult, ExpectedRevision, NewEvent, RecordedEvent } from './envelope.js';
import type { Position } from './position.js';

export type ReadStreamOptions = { readonly fromRevision?: number; readonly maxCount?: number };
export type ReadAllOptions = { readonly after?: Position; readonly maxCount?: number };

/** A live feed of the global log; iterate with `for await`, end with close(). */
export type Subscription = AsyncIterable<RecordedEvent> & { close(): Promise<void> };

/**
 * The event store port. Every adapter passes test/events/event-store.contract.ts.
 * Streams are read in revision order; the global log in commit order, never skipping an event
 * that commits later with a lower number.
 */
export interface EventStore {
  readonly kind: 'postgres' | 'pglite' | 'eventstoredb';
  appendToStream(streamId: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult>;
  /** Events of one stream in revision order; [] when the stream does not exist. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Events committed after `after` (exclusive), in commit order. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Every event after `after`, then each new one as it commits. */
  subscribeToAll(options?: { readonly after?: Position }): Subscription;
  /** Position of the newest event readers can see, or null for an empty log. */
  headPosition(): Promise<Position | null>;
  /**
   * Calls `listener` (best effort, may coalesce) when events may have been appended, by any instance;
   * for an append of this process, with the position of its last event, committed by then.
   */
  onAppended(listener: (position?: Position) => void): () => void;
  close(): Promise<void>;
}
