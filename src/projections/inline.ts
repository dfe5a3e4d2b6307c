import type { Logger } from 'pino';
import { IN_FAILED_TRANSACTION, type SqlDb, type SqlExecutor } from '../db/sql.js';
import type { RecordedEvent, UnpositionedEvent } from '../events/envelope.js';
import { START, type Position } from '../events/position.js';
import type { InlineProjection, SqlEventStore } from '../events/sql/sql-event-store.js';
import { applyEvents } from './apply-batch.js';
import { quoteIdent, readCheckpoints, toPosition, useSchema } from './checkpoints.js';
import { batchStatementsOf, type ProjectionHandler, type Projector, type Statement } from './projector.js';
import { recordedSkips } from './skip.js';

/**
 * Inline projection: when the log and the read models share one database, each append writes the
 * rows its events produce in its own transaction, as Marten's Inline lifecycle does. A command
 * then commits once and has nothing to wait for, and no checkpoint row is written per append.
 *
 * Every inline append holds the schema's fence shared; whatever must see the read models and the
 * log still (a rebuild's swap, a switch between inline and async) takes it exclusively.
 */
const fenceName = (schema: string): string => `rm.fence:${schema}`;

const PAGE = 1000;

export function inlineProjection(all: readonly Projector[], schema: string, logger?: Pick<Logger, 'error'>): InlineProjection {
  const projectors = inlined(all);
  // quoteIdent admits [a-z0-9_] only, so both texts are safe inside single quotes.
  const path = `${quoteIdent(schema)}, public`;
  const handlerOf = (p: Projector, type: string): ProjectionHandler | undefined => p.on[type] ?? p.onAny;
  /** Event type → whether every handler it reaches is statements, which can go before the append's answer. */
  const ahead = new Map<string, boolean>();
  const goesAhead = (type: string): boolean => {
    let known = ahead.get(type);
    if (known === undefined) {
      known = projectors.every((p) => {
        const handler = handlerOf(p, type);
        return handler === undefined || handler.statements !== undefined;
      });
      ahead.set(type, known);
    }
    return known;
  };

  /**
   * Writes `events`' rows in `tx`. Statements whose answers nobody reads go out without waiting,
   * COMMIT behind them (SqlExecutor); any other handler runs through `wait`. A read model that
   * `together` gives statements for its events writes them in those, not event by event. The first
   * failure is the cause: the statements after it only find the transaction aborted.
   */
  const writeRows = async <E extends UnpositionedEvent>(
    tx: SqlExecutor,
    events: readonly E[],
    wait: (handler: ProjectionHandler, event: E) => Promise<unknown>,
    together: (p: Projector, handled: readonly E[]) => readonly Statement[] | null = () => null,
  ): Promise<void> => {
    let cause: { err: unknown } | null = null;
    const refused = (p: Projector, refusedEvents: readonly E[]) => (err: unknown) => {
      if (cause) return cause;
      // The append rolls back with it: the command fails and no event is stored that a read model refused.
      const eventType = [...new Set(refusedEvents.map((e) => e.type))].join(', ');
      logger?.error({ err, projector: p.name, eventType }, 'inline read model refused an event; the append rolled back');
      return (cause = { err });
    };
    // A statement sent ahead of the append's answer fails too when the append does (its head moved,
    // the connection was lost): only the database refusing the statement itself is the read model's.
    const sentAndRefused = (p: Projector, refusedEvents: readonly E[]) => (err: unknown) =>
      isRefusalOfItsOwn(err) ? refused(p, refusedEvents)(err) : null;
    const send = (p: Projector, statements: readonly Statement[], of: readonly E[]) => {
      for (const statement of statements) void tx.query(...statement).catch(sentAndRefused(p, of));
    };
    for (const p of projectors) {
      const handled = events.filter((e) => handlerOf(p, e.type));
      const statements = handled.length > 1 ? together(p, handled) : null;
      if (statements) {
        send(p, statements, handled);
        continue;
      }
      for (const event of handled) {
        const handler = handlerOf(p, event.type)!;
        try {
          if (handler.statements) send(p, handler.statements(event), [event]);
          else await wait(handler, event);
        } catch (err) {
          throw refused(p, [event])(err).err;
        }
      }
    }
  };
  const cannotWait = (): Promise<never> => Promise.reject(new Error('a handler that waits was sent ahead'));

  return {
    prelude: `SELECT set_config('search_path', '${path}', true), pg_advisory_xact_lock_shared(hashtextextended('${fenceName(schema)}', 0))`,
    // goesAhead: every handler is statements, so all are sent before this returns.
    sendAhead: (tx, events) => (events.every((e) => goesAhead(e.type)) ? writeRows(tx, events, cannotWait) : null),
    // Positioned, a run of events can take a read model's set-based form: one statement for a batch of commands' rows.
    apply: (tx, events) => writeRows(tx, events, (handler, event) => handler(tx, event), batchStatementsOf),
  };
}

/** The read models an append writes inline: all but those that follow the log, which the engine applies in log order. */
export const inlined = (projectors: readonly Projector[]): Projector[] => projectors.filter((p) => !p.followsLog);

/** The database's answer to this statement (a SQLSTATE), not to one before it nor a lost connection. */
function isRefusalOfItsOwn(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && code !== IN_FAILED_TRANSACTION;
}

/** Holds every inline appender of `schema` off until the caller's transaction ends. */
export async function holdAppendersOff(tx: SqlExecutor, schema: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [fenceName(schema)]);
}

/**
 * Before appends project inline: each projector still run asynchronously catches up with every
 * committed event, then is marked inline, with every appender held off so none is missed or doubled.
 */
export async function switchToInline(db: SqlDb, store: SqlEventStore, projectors: readonly Projector[], schema: string): Promise<void> {
  const skips = await recordedSkips(store);
  await db.transaction(async (tx) => {
    await holdAppendersOff(tx, schema);
    const rows = new Map((await readCheckpoints(tx, schema)).map((r) => [r.projector, r]));
    for (const p of projectors) {
      const row = rows.get(p.name);
      if (!row || row.inline) continue;
      await useSchema(tx, schema);
      let after = row.position;
      for (;;) {
        const batch: RecordedEvent[] = await store.readAllCommittedUsing(tx, { after, maxCount: PAGE });
        if (batch.length === 0) break;
        after = await applyEvents(tx, p, batch, skips.get(p.name));
      }
      await tx.query(`UPDATE ${quoteIdent(schema)}.projection_checkpoints SET inline = true WHERE projector = $1`, [p.name]);
    }
  });
}

/**
 * Back to asynchronous projection (EventStoreDB-style): an inline projector has applied every
 * committed event, so its checkpoint moves to the newest one, with every appender held off.
 */
export async function switchToAsync(db: SqlDb, projectors: readonly Projector[], schema: string): Promise<void> {
  await db.transaction(async (tx) => {
    await holdAppendersOff(tx, schema);
    const inline = (await readCheckpoints(tx, schema)).filter((r) => r.inline && projectors.some((p) => p.name === r.projector));
    if (inline.length === 0) return;
    const head = await committedHead(tx);
    for (const row of inline) {
      await tx.query(
        `UPDATE ${quoteIdent(schema)}.projection_checkpoints SET commit_pos = $2, prepare_pos = $3, inline = false WHERE projector = $1`,
        [row.projector, head.commit.toString(), head.prepare.toString()],
      );
    }
  });
}

async function committedHead(tx: SqlExecutor): Promise<Position> {
  const r = await tx.query<{ commit: string; prepare: string }>(
    'SELECT transaction_id::text AS commit, position::text AS prepare FROM es.events ORDER BY transaction_id DESC, position DESC LIMIT 1',
  );
  return r.rows[0] ? toPosition(r.rows[0]) : START;
}
