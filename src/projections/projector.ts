import type { DomainEvent } from '../commands/decider.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EventDecoder, Recorded } from '../events/decoder.js';
import type { RecordedEvent, UnpositionedEvent } from '../events/envelope.js';

/** One statement and its parameters. */
export type Statement = readonly [text: string, values: readonly unknown[]];

export type ProjectionHandler = {
  (tx: SqlExecutor, event: RecordedEvent): Promise<unknown>;
  /**
   * Set when the handler is statements built from its event alone, whose answers nobody reads
   * (writes): inline, they go out with the append, before its answer gives the event a position.
   */
  readonly statements?: (event: UnpositionedEvent) => readonly Statement[];
};

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

/** Sent: the event as its statements see it, without its position (ProjectionHandler.statements). */
type TypedHandler<Event, Sent> = {
  (tx: SqlExecutor, event: Event): Promise<unknown>;
  readonly statements?: (event: Sent) => readonly Statement[];
};

/** Handlers by event type, each given its event decoded: typed, in its current shape. */
export type TypedHandlers<E extends DomainEvent> = {
  readonly [K in E['type']]?: TypedHandler<
    Recorded<Extract<E, { readonly type: K }>>,
    Recorded<Extract<E, { readonly type: K }>, UnpositionedEvent>
  >;
};

/**
 * A handler that runs statements built from its event alone, in order; nothing reads their answers.
 * They may not read the event's position: inline, they are sent before the append has answered.
 */
export function writes<Event extends Sent, Sent>(build: (event: Sent) => readonly Statement[]): TypedHandler<Event, Sent> {
  const handler = async (tx: SqlExecutor, event: Event) => {
    for (const statement of build(event)) await tx.query(...statement);
  };
  return Object.assign(handler, { statements: build });
}

/** A read model of the events `events` decodes; every handler reads them typed and upcast. */
export function projector<E extends DomainEvent>(
  definition: Header & { readonly events: EventDecoder<E>; readonly on: TypedHandlers<E> },
): Projector {
  const { events, on, ...header } = definition;
  const handlers: Record<string, ProjectionHandler> = {};
  const typed = Object.entries(on) as [string, TypedHandler<Recorded<E>, Recorded<E, UnpositionedEvent>> | undefined][];
  for (const [type, handle] of typed) {
    if (!handle) continue;
    const { statements } = handle;
    const decoded: ProjectionHandler = (tx, event) => handle(tx, events.decode(event));
    handlers[type] = statements
      ? Object.assign(decoded, { statements: (event: UnpositionedEvent) => statements(events.decode(event)) })
      : decoded;
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
