import type { DomainEvent } from '../commands/decider.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EventDecoder, Recorded } from '../events/decoder.js';
import type { RecordedEvent } from '../events/envelope.js';

export type ProjectionHandler = (tx: SqlExecutor, event: RecordedEvent) => Promise<unknown>;

/**
 * A read model: its tables (DDL run inside the read-model schema, so names stay unqualified)
 * and one handler per event type it cares about. Handlers must be deterministic, using only the
 * event (never the clock), so a replay rebuilds the same rows.
 */
export type Projector = {
  readonly name: string;
  /** Bump when the tables or handlers change meaning; the service then rebuilds from the log. */
  readonly version: number;
  readonly schemaSql: string;
  readonly on: Readonly<Record<string, ProjectionHandler>>;
  /** For read models about the log itself: runs for every event type without its own handler. */
  readonly onAny?: ProjectionHandler;
  /**
   * Set-based: applies many events in a few statements (replay, async batches), leaving the same
   * rows as its per-event handlers would. A failure falls back to them, which name the event.
   */
  readonly onBatch?: (tx: SqlExecutor, events: readonly RecordedEvent[]) => Promise<unknown>;
  /** The decoder its handlers read through (absent for a read model of the log itself). */
  readonly events?: Pick<EventDecoder<DomainEvent>, 'versionOf'>;
};

type Header = Pick<Projector, 'name' | 'version' | 'schemaSql'>;

/** Handlers by event type, each given its event decoded: typed, in its current shape. */
export type TypedHandlers<E extends DomainEvent> = {
  readonly [K in E['type']]?: (tx: SqlExecutor, event: Recorded<Extract<E, { readonly type: K }>>) => Promise<unknown>;
};

/** A read model of the events `events` decodes; every handler reads them typed and upcast. */
export function projector<E extends DomainEvent>(
  definition: Header & { readonly events: EventDecoder<E>; readonly on: TypedHandlers<E> },
): Projector {
  const { events, on, ...header } = definition;
  const handlers: Record<string, ProjectionHandler> = {};
  const typed = Object.entries(on) as [string, ((tx: SqlExecutor, event: Recorded<E>) => Promise<unknown>) | undefined][];
  for (const [type, handle] of typed) {
    if (handle) handlers[type] = (tx, event) => handle(tx, events.decode(event));
  }
  return checked({ ...header, on: handlers, events });
}

/** A read model about the log itself (every event, whatever its family): it reads only the envelope. */
export function logProjector(
  definition: Header & { readonly onAny: ProjectionHandler; readonly onBatch?: Projector['onBatch'] },
): Projector {
  return checked({ ...definition, on: {} });
}

function checked(definition: Projector): Projector {
  if (!/^[a-z][a-z0-9_]*$/.test(definition.name)) throw new Error(`projector name ${definition.name} must be snake_case`);
  return Object.freeze(definition);
}
