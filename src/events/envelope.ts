import type { Position } from './position.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Who caused an event: a user, an organization member, or the service itself. */
export type Actor = { readonly kind: 'user' | 'member' | 'system'; readonly id: string };

/** What a command hands to the store. The store completes the metadata (hash links). */
export type NewEvent<T extends string = string, D extends JsonObject = JsonObject> = {
  readonly type: T;
  readonly data: D;
  readonly metadata: EventContext & {
    /** Deterministic where a retry must not duplicate the event (derived from a command id). */
    readonly eventId: string;
    readonly schemaVersion: number;
  };
};

/** Request-scoped facts every event carries. */
export type EventContext = {
  readonly occurredAt: string;
  readonly actor: Actor;
  readonly correlationId: string;
  readonly causationId: string | null;
};

export type EventMetadata = NewEvent['metadata'] & {
  /** sha256 of the previous event of the same stream; null for a stream's first event. */
  readonly prevHash: string | null;
  /** sha256 over this event's stream, revision, type, data, metadata and prevHash. */
  readonly hash: string;
};

export type RecordedEvent<T extends string = string, D extends JsonObject = JsonObject> = {
  readonly streamId: string;
  /** 0-based number of this event within its stream (EventStoreDB's revision). */
  readonly revision: number;
  readonly position: Position;
  readonly type: T;
  readonly data: D;
  readonly metadata: EventMetadata;
};

/**
 * An event as its append's transaction sends it, before the log has given it a position: all that
 * a read model written in that transaction, without waiting for the append's answer, may read.
 */
export type UnpositionedEvent = Omit<RecordedEvent, 'position'>;

/**
 * The revision a writer expects the stream to be at: the 0-based number of its last event,
 * or one of the symbolic states EventStoreDB defines.
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export type AppendResult = {
  /** Revision of the last event appended: the value to pass as the next expected revision. */
  readonly nextExpectedRevision: number;
  /** Global position of the last event appended; hand it to waitFor for read-your-writes. */
  readonly position: Position;
};

export function streamCategory(streamId: string): string {
  const dash = streamId.indexOf('-');
  return dash === -1 ? streamId : streamId.slice(0, dash);
}
