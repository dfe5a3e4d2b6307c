import type { DomainEvent } from '../commands/decider.js';
import { joinedStatements } from '../db/one-statement.js';
import type { SqlExecutor, Statement } from '../db/sql.js';
import type { EventDecoder, Recorded } from '../events/decoder.js';
import type { RecordedEvent, UnpositionedEvent } from '../events/envelope.js';

export type { Statement };

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
  /**
   * The set-based form as statements built from the events alone, whose answers nobody reads: what
   * onBatch would send, for a caller that sends them itself (inline, a batch of appends' rows ahead
   * of its COMMIT). Null when a handler the events reach must read.
   */
  readonly batchStatements?: (events: readonly RecordedEvent[]) => readonly Statement[] | null;
  /** The decoder its handlers read through (absent for a read model of the log itself). */
  readonly events?: Pick<EventDecoder<DomainEvent>, 'versionOf'>;
  /**
   * Applied only by the engine's own loop, in log order, even where the others are written inline,
   * and never waited for by a command: for a read model whose handlers read rows that other streams'
   * events wrote, which only log order makes the same live and on a rebuild (docs/decisions.md, "The events feed").
   */
  readonly followsLog?: boolean;
  /**
   * Its set-based statements keep one plan whatever a batch holds (each lookup by key, on plans
   * made while the tables were small): an async batch runs them with PostgreSQL's generic plans
   * forced, where the generic plan counts ten rows an array and loses to a custom plan made anew
   * for many batches (docs/decisions.md, "Read models").
   */
  readonly genericPlans?: boolean;
};

type Header = Pick<Projector, 'name' | 'version' | 'schemaSql' | 'followsLog' | 'genericPlans'>;

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
 * `independent`: they share no row and none reads a table another writes, so they go joined as one
 * (joinedStatements); the projector specs, applying the handlers, show they leave the same rows.
 */
export function writes<Event extends Sent, Sent>(
  build: (event: Sent) => readonly Statement[],
  { independent = false } = {},
): TypedHandler<Event, Sent> {
  const statements = independent ? (event: Sent) => joined(build(event)) : build;
  const handler = async (tx: SqlExecutor, event: Event) => {
    for (const statement of statements(event)) await tx.query(...statement);
  };
  return Object.assign(handler, { statements });
}

const joined = (statements: readonly Statement[]): Statement[] => joinedStatements(statements).map((j) => j.statement);

/**
 * A read model's set-based form: a run of consecutive events of `types` written by a few statements
 * over the whole run. Any other event is a barrier: the run before it is written, then its own
 * handler runs, so everything keeps its place in the log. `statements` must leave the rows the
 * events' handlers would, one by one: the projector specs apply every spec both ways.
 */
export type SetBasedForm<E extends DomainEvent> = {
  readonly types: readonly E['type'][];
  readonly statements: (run: readonly Recorded<E>[]) => readonly Statement[];
  /**
   * Whether a run's statements share no row and none reads a table another writes: then they go
   * joined as one (joinedStatements). The projector specs, applying the form, show it leaves the same rows.
   */
  readonly independent?: (run: readonly Recorded<E>[]) => boolean;
};

/** The statements of a run as the form writes them: joined when they are independent. */
function statementsOfRun<E extends DomainEvent>(form: SetBasedForm<E>, run: readonly Recorded<E>[]): readonly Statement[] {
  const statements = form.statements(run);
  return form.independent?.(run) ? joined(statements) : statements;
}

/** A read model of the events `events` decodes; every handler reads them typed and upcast. */
export function projector<E extends DomainEvent>(
  definition: Header & { readonly events: EventDecoder<E>; readonly on: TypedHandlers<E>; readonly setBased?: SetBasedForm<E> },
): Projector {
  const { events, on, setBased, ...header } = definition;
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
  const forms = setBased && {
    onBatch: inRuns(setBased, events, handlers),
    batchStatements: runsAsStatements(setBased, events, handlers),
  };
  return checked({ ...header, on: handlers, events, ...forms });
}

/** A batch cut into the set-based form's runs (each possibly empty) and the events between them, in log order. */
function* runsOf<E extends DomainEvent>(
  form: SetBasedForm<E>,
  events: EventDecoder<E>,
  batch: readonly RecordedEvent[],
): Generator<{ readonly run: readonly Recorded<E>[] } | { readonly barrier: RecordedEvent }> {
  const gathered = new Set<string>(form.types);
  let run: Recorded<E>[] = [];
  for (const event of batch) {
    if (gathered.has(event.type)) {
      run.push(events.decode(event));
      continue;
    }
    yield { run };
    run = [];
    yield { barrier: event };
  }
  yield { run };
}

/**
 * The set-based form as an `onBatch`: statements go out without waiting for their answers (the
 * transaction runs them in order), except before a barrier whose handler reads.
 */
function inRuns<E extends DomainEvent>(
  form: SetBasedForm<E>,
  events: EventDecoder<E>,
  handlers: Readonly<Record<string, ProjectionHandler>>,
): NonNullable<Projector['onBatch']> {
  return async (tx, batch) => {
    const sent: Promise<unknown>[] = [];
    const send = (statements: readonly Statement[]) => {
      for (const [text, values] of statements) {
        const answer = tx.query(text, values);
        // Awaited below; should a decoder throw first, a failed write must not go unhandled meanwhile.
        answer.catch(() => undefined);
        sent.push(answer);
      }
    };
    for (const part of runsOf(form, events, batch)) {
      if ('run' in part) {
        send(statementsOfRun(form, part.run));
        continue;
      }
      const handler = handlers[part.barrier.type]!;
      if (handler.statements) send(handler.statements(part.barrier));
      else {
        await Promise.all(sent);
        await handler(tx, part.barrier);
      }
    }
    await Promise.all(sent);
  };
}

/** The set-based form as `batchStatements`: null when a barrier's handler reads. */
function runsAsStatements<E extends DomainEvent>(
  form: SetBasedForm<E>,
  events: EventDecoder<E>,
  handlers: Readonly<Record<string, ProjectionHandler>>,
): NonNullable<Projector['batchStatements']> {
  return (batch) => {
    const statements: Statement[] = [];
    for (const part of runsOf(form, events, batch)) {
      const built = 'run' in part ? statementsOfRun(form, part.run) : handlers[part.barrier.type]?.statements?.(part.barrier);
      if (!built) return null;
      statements.push(...built);
    }
    return statements;
  };
}

/**
 * The statements of the projector's set-based form for these events (Projector.batchStatements);
 * null without one, when a handler they reach reads, or when building them fails (a decoder's
 * error), so that the caller applies them one by one and the failing event is named.
 */
export function batchStatementsOf(p: Projector, events: readonly RecordedEvent[]): readonly Statement[] | null {
  try {
    return p.batchStatements?.(events) ?? null;
  } catch {
    return null;
  }
}

/** A read model about the log itself (every event, whatever its family): it reads only the envelope. */
export function logProjector(
  definition: Header & {
    readonly onAny: ProjectionHandler;
    readonly onBatch?: Projector['onBatch'];
    /** Without an onBatch of its own, its onBatch sends these. */
    readonly batchStatements?: (events: readonly RecordedEvent[]) => readonly Statement[];
  },
): Projector {
  const { batchStatements } = definition;
  const onBatch: Projector['onBatch'] =
    definition.onBatch ?? (batchStatements && ((tx, events) => Promise.all(batchStatements(events).map((s) => tx.query(...s)))));
  return checked({ ...definition, on: {}, ...(onBatch ? { onBatch } : {}) });
}

/** The tables the read model's schema creates: its own, which no other read model writes. */
export function tablesOf(p: Pick<Projector, 'schemaSql'>): Set<string> {
  const created = p.schemaSql.matchAll(/CREATE\s+(?:UNLOGGED\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)/gi);
  return new Set([...created].map((m) => m[1]!));
}

function checked(definition: Projector): Projector {
  if (!/^[a-z][a-z0-9_]*$/.test(definition.name)) throw new Error(`projector name ${definition.name} must be snake_case`);
  return Object.freeze(definition);
}
