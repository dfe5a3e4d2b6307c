import type { Logger } from 'pino';
import { joinedStatements } from '../db/one-statement.js';
import { IN_FAILED_TRANSACTION, type SqlDb, type SqlExecutor } from '../db/sql.js';
import type { RecordedEvent, UnpositionedEvent } from '../events/envelope.js';
import { START, type Position } from '../events/position.js';
import type { InlineProjection, SqlEventStore } from '../events/sql/sql-event-store.js';
import { applyEvents } from './apply-batch.js';
import { quoteIdent, readCheckpoints, toPosition, useSchema } from './checkpoints.js';
import { batchStatementsOf, tablesOf, type ProjectionHandler, type Projector, type Statement } from './projector.js';
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
   * COMMIT behind them (SqlExecutor), joined across read models (joinedStatements: each reads and
   * writes only its own tables), a read model's own in the order it gave them; any other handler
   * runs through `wait`. A read model that `together` gives statements for its events writes them
   * in those, not event by event. The first failure is the cause: the statements after it only
   * find the transaction aborted.
   */
  const writeRows = async <E extends UnpositionedEvent>(
    tx: SqlExecutor,
    events: readonly E[],
    wait: (handler: ProjectionHandler, event: E) => Promise<unknown>,
    together: (p: Projector, handled: readonly E[]) => readonly Statement[] | null = () => null,
  ): Promise<void> => {
    let cause: { err: unknown } | null = null;
    const refused = (writers: readonly Writer<E>[]) => (err: unknown) => {
      if (cause) return cause;
      // The append rolls back with it: the command fails and no event is stored that a read model refused.
      const eventType = [...new Set(writers.flatMap((w) => w.of.map((e) => e.type)))].join(', ');
      const projector = writers.map((w) => w.p.name).join(', ');
      logger?.error({ err, projector, eventType }, 'inline read model refused an event; the append rolled back');
      return (cause = { err });
    };
    // A statement sent ahead of the append's answer fails too when the append does (its head moved,
    // the connection was lost): only the database refusing the statement itself is the read model's.
    const sentAndRefused = (writers: readonly Writer<E>[]) => (err: unknown) =>
      isRefusalOfItsOwn(err) ? refused(refusedBy(writers, err))(err) : null;
    const unread: Unread<E>[] = [];
    for (const p of projectors) {
      const handled = events.filter((e) => handlerOf(p, e.type));
      if (handled.length === 0) continue;
      const statements = (handled.length > 1 ? together(p, handled) : null) ?? statementsAlone(p, handled, refused);
      if (statements) {
        unread.push({ p, statements, of: handled });
        continue;
      }
      for (const event of handled) {
        const handler = handlerOf(p, event.type)!;
        const of = [event];
        try {
          if (handler.statements) for (const s of handler.statements(event)) void tx.query(...s).catch(sentAndRefused([{ p, of }]));
          else await wait(handler, event);
        } catch (err) {
          throw refused([{ p, of }])(err).err;
        }
      }
    }
    // Round r joins each read model's r-th statement: its r+1-th goes after, in a later statement.
    for (let r = 0; unread.some((w) => w.statements.length > r); r++) {
      const round = unread.filter((w) => w.statements.length > r);
      for (const { statement, parts } of joinedStatements(round.map((w) => w.statements[r]!))) {
        void tx.query(...statement).catch(sentAndRefused(parts.map((i) => round[i]!)));
      }
    }
  };
  /** The statements of each event's handler in turn; null when one of them reads. */
  const statementsAlone = <E extends UnpositionedEvent>(
    p: Projector,
    handled: readonly E[],
    refused: (writers: readonly Writer<E>[]) => (err: unknown) => { err: unknown },
  ): Statement[] | null => {
    if (!handled.every((e) => handlerOf(p, e.type)!.statements)) return null;
    return handled.flatMap((event) => {
      try {
        return handlerOf(p, event.type)!.statements!(event);
      } catch (err) {
        throw refused([{ p, of: [event] }])(err).err;
      }
    });
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

/** A read model writing some of an append's events. */
type Writer<E> = { readonly p: Projector; readonly of: readonly E[] };
/** Its statements for them, which nobody reads the answers of. */
type Unread<E> = Writer<E> & { readonly statements: readonly Statement[] };

/**
 * Of the read models whose statements were joined into one that failed, the one that owns the table
 * the error names (a constraint's); all of them when it names none.
 */
function refusedBy<W extends { readonly p: Projector }>(writers: readonly W[], err: unknown): readonly W[] {
  const table = (err as { table?: unknown }).table;
  const owner = writers.filter((w) => typeof table === 'string' && tablesOf(w.p).has(table));
  return owner.length === 1 ? owner : writers;
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
