// The pure half of the EventStoreDB adapter: how our envelopes, revisions and positions map to
// the client's, kept apart so it is tested without a server.
import {
  jsonEvent,
  START as ES_START,
  type EventData,
  type Position as EsPosition,
  type ReadPosition,
  type RecordedEvent as EsRecordedEvent,
} from '@eventstore/db-client';
import type { Actor, EventMetadata, ExpectedRevision, JsonObject, NewEvent, RecordedEvent } from '../envelope.js';
import { comparePositions, type Position } from '../position.js';

/** EventStoreDB's own events ($metadata, $>, projections' $-types) are not part of our log. */
export function isSystemEventType(type: string): boolean {
  return type.startsWith('$');
}

/** Whether a stream at `actual` satisfies the writer's expectation. */
export function satisfies(expected: ExpectedRevision, actual: number | 'no_stream'): boolean {
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

/** The client counts revisions in bigint; ours are numbers, exact only up to 2^53. */
export function toRevision(revision: bigint): number {
  const n = Number(revision);
  if (!Number.isSafeInteger(n)) throw new RangeError(`revision ${revision} is beyond what this store can number`);
  return n;
}

export function toPosition(p: EsPosition): Position {
  return { commit: p.commit, prepare: p.prepare };
}

/**
 * Where a forward read or subscription should begin to answer what comes after `after`.
 * The client's position is inclusive for reads, so callers still drop what is not isAfter.
 */
export function readFrom(after: Position): ReadPosition {
  return after.commit < 0n ? ES_START : { commit: after.commit, prepare: after.prepare };
}

export function isAfter(p: Position, after: Position): boolean {
  return comparePositions(p, after) > 0;
}

/** The client's event as ours; throws for an event this store did not write. */
export function toRecordedEvent(e: EsRecordedEvent): RecordedEvent {
  const unreadable = (why: string) => new Error(`event ${e.id} (${e.streamId}@${e.revision}) is not one this store wrote: ${why}`);
  if (!e.isJson || !isJsonObject(e.data)) throw unreadable('data is not a JSON object');
  if (!isEventMetadata(e.metadata)) throw unreadable('metadata is not an event envelope');
  // Stream reads carry positions only from EventStoreDB 22.6 on.
  if (!e.position) throw unreadable('no position');
  return {
    streamId: e.streamId,
    revision: toRevision(e.revision),
    position: toPosition(e.position),
    type: e.type,
    data: e.data,
    metadata: e.metadata,
  };
}

/** The batch as the client writes it: our event id as EventStoreDB's, so the server deduplicates retries. */
export function toEventData(events: readonly NewEvent[], linked: readonly EventMetadata[]): EventData[] {
  return events.map((e, i) => jsonEvent({ id: e.metadata.eventId, type: e.type, data: e.data, metadata: linked[i]! }));
}

/**
 * Whether `tail`, a stream's last events in revision order, is exactly this batch: the mark of an
 * append that committed although its answer was lost.
 */
export function isSameBatch(tail: readonly RecordedEvent[], batch: readonly NewEvent[]): boolean {
  return (
    tail.length === batch.length &&
    tail.every((e, i) => e.metadata.eventId === batch[i]!.metadata.eventId && e.revision === tail[0]!.revision + i)
  );
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

// Data arrives through JSON.parse, so an object is a JSON object all the way down.
function isJsonObject(v: unknown): v is JsonObject {
  return isRecord(v);
}

const ACTOR_KINDS: readonly unknown[] = ['user', 'member', 'system'] satisfies Actor['kind'][];

function isEventMetadata(v: unknown): v is EventMetadata {
  if (!isRecord(v) || !isRecord(v.actor)) return false;
  const nullableString = (x: unknown) => x === null || typeof x === 'string';
  return (
    typeof v.eventId === 'string' &&
    typeof v.schemaVersion === 'number' &&
    typeof v.occurredAt === 'string' &&
    typeof v.correlationId === 'string' &&
    nullableString(v.causationId) &&
    ACTOR_KINDS.includes(v.actor.kind) &&
    typeof v.actor.id === 'string' &&
    nullableString(v.prevHash) &&
    typeof v.hash === 'string'
  );
}
