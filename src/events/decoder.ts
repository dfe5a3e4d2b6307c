import type { DomainEvent } from './domain-event.js';
import type { JsonObject, RecordedEvent, UnpositionedEvent } from './envelope.js';
import type { EventStore } from './store.js';

/** A recorded event of a known type, its data in that type's current shape (R: with its position, or without). */
export type Recorded<E extends DomainEvent, R extends UnpositionedEvent = RecordedEvent> = Omit<R, 'type' | 'data'> & E;

/** Moves one event's data from schema version n (its key) to n + 1. Pure: no clock, no lookups. */
export type Upcaster = (data: JsonObject) => JsonObject;

export type EventTypeSpec = {
  /** The schemaVersion this service writes, and the shape its code reads. */
  readonly version: number;
  /** One per older version still in some log: `{ 1: v1ToV2, 2: v2ToV3 }`. */
  readonly upcasters?: Readonly<Record<number, Upcaster>>;
};

/** Every event type of one family, each with the version written now and how older ones are read. */
export type EventSpecs<E extends DomainEvent> = { readonly [K in E['type']]: EventTypeSpec };

/**
 * The one way a stored event becomes typed (docs/decisions.md, "Event schema versions"): the type
 * must be one of the family's, its data is upcast to the current version, and only then is it read
 * as that type.
 */
export type EventDecoder<E extends DomainEvent> = {
  readonly family: string;
  readonly types: ReadonlySet<string>;
  /** The schemaVersion to write with an event of this type. */
  versionOf(type: string): number;
  decode<R extends UnpositionedEvent>(event: R): Recorded<E, R>;
};

/** A stored event this service cannot read: of another family, from a newer service, or with no upcaster. */
export class UndecodableEventError extends Error {
  override readonly name = 'UndecodableEventError';
}

export function eventDecoder<E extends DomainEvent>(family: string, specs: EventSpecs<E>): EventDecoder<E> {
  const byType = new Map<string, EventTypeSpec>(Object.entries<EventTypeSpec>(specs));
  return {
    family,
    types: new Set(byType.keys()),
    versionOf: (type) => byType.get(type)?.version ?? 1,
    decode<R extends UnpositionedEvent>(event: R) {
      const spec = byType.get(event.type);
      const where = `${event.type} at revision ${event.revision} of ${event.streamId}`;
      if (!spec) throw new UndecodableEventError(`${where} is not a ${family} event`);
      let { schemaVersion } = event.metadata;
      if (schemaVersion > spec.version) {
        throw new UndecodableEventError(`${where} has schema version ${schemaVersion}; this service reads up to ${spec.version}`);
      }
      let data = event.data;
      for (; schemaVersion < spec.version; schemaVersion++) {
        const upcast = spec.upcasters?.[schemaVersion];
        if (!upcast) throw new UndecodableEventError(`${where} has schema version ${schemaVersion}, which nothing upcasts`);
        data = upcast(data);
      }
      // The one cast of a stored event: its type is in the family and its data in the current shape (through
      // unknown, as R, its envelope, is generic).
      return { ...event, data } as unknown as Recorded<E, R>;
    },
  };
}

/** One decoder over several families (a read model that reads more than one): types never overlap. */
export function eitherOf<A extends DomainEvent, B extends DomainEvent>(a: EventDecoder<A>, b: EventDecoder<B>): EventDecoder<A | B> {
  for (const type of b.types) if (a.types.has(type)) throw new Error(`${type} is in both ${a.family} and ${b.family}`);
  const of = (type: string): EventDecoder<A> | EventDecoder<B> => (a.types.has(type) ? a : b);
  return {
    family: `${a.family} or ${b.family}`,
    types: new Set([...a.types, ...b.types]),
    versionOf: (type) => of(type).versionOf(type),
    decode: <R extends UnpositionedEvent>(event: R) => of(event.type).decode(event),
  };
}

/** A stream and the family of events it holds. */
export type StreamRef<E extends DomainEvent> = { readonly id: string; readonly events: EventDecoder<E> };

export function streamOf<E extends DomainEvent>(events: EventDecoder<E>, id: string): StreamRef<E> {
  return { id, events };
}

/** A stream decoded from a revision on (the whole of it by default), at most `maxCount` events when given. */
export async function readDecoded<E extends DomainEvent>(
  store: Pick<EventStore, 'readStream'>,
  stream: StreamRef<E>,
  fromRevision = 0,
  maxCount?: number,
): Promise<Recorded<E>[]> {
  const options = maxCount === undefined ? { fromRevision } : { fromRevision, maxCount };
  return (await store.readStream(stream.id, options)).map((e) => stream.events.decode(e));
}
