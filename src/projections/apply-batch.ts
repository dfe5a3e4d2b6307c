import { joinedStatements } from '../db/one-statement.js';
import type { QueryResult, SqlDb, SqlExecutor } from '../db/sql.js';
import type { RecordedEvent } from '../events/envelope.js';
import { comparePositions, type Position } from '../events/position.js';
import { checkpointSql, schemaPrelude, toPosition } from './checkpoints.js';
import { batchStatementsOf, type ProjectionHandler, type Projector, type Statement } from './projector.js';
import { ProjectorEventError } from './stall.js';

export type BatchOutcome = { applied: boolean; checkpoint: Position };

/**
 * Applies a batch and advances the checkpoint in one transaction, so no event is applied twice: if
 * anything else moved the checkpoint (another instance, a replay's swap), nothing is applied and
 * the caller continues from where the row stands. A set-based form goes first, sent at once with
 * the checkpoint's compare-and-set (appliedAsSet); should either fail, the checkpoint row is locked
 * and compared, and the per-event handlers name the failing event.
 */
export async function applyBatch(
  db: SqlDb,
  schema: string,
  p: Projector,
  expected: Position,
  events: readonly RecordedEvent[],
): Promise<BatchOutcome> {
  if (!events.some((e) => handlerFor(p, e))) return skipBatch(db, schema, p, expected, events);
  const asSet = p.onBatch && (await appliedAsSet(db, schema, p, p.onBatch, expected, events));
  if (asSet) return asSet;
  return db.transaction(
    async (tx) => {
      const row = (await tx.query<{ commit: string; prepare: string }>(checkpointSql.lockOne, [p.name])).rows[0];
      if (!row) throw new Error(`read model ${p.name} is not installed in schema ${schema}`);
      const stored = toPosition(row);
      if (comparePositions(stored, expected) !== 0) return { applied: false, checkpoint: stored };
      await applyOneByOne(tx, p, events);
      return { applied: true, checkpoint: await advancePast(tx, p, events) };
    },
    { prelude: schemaPrelude(schema) },
  );
}

/** For the transaction: each prepared statement runs on its generic plan (Projector.genericPlans). */
const GENERIC_PLANS = 'SET LOCAL plan_cache_mode = force_generic_plan';

/** The checkpoint seen moved under a batch applied without its lock: the batch rolls back. */
class CheckpointMoved extends Error {}

/**
 * The batch's set-based writes and the checkpoint's compare-and-set, all sent at once with no lock
 * read first and no savepoint: BEGIN, the writes and the compare-and-set in one round trip, COMMIT
 * in a second (docs/performance.md, "How the fast path is built").
 * A checkpoint moved meanwhile rolls the writes back. Null when anything failed, all rolled back.
 */
async function appliedAsSet(
  db: SqlDb,
  schema: string,
  p: Projector,
  onBatch: NonNullable<Projector['onBatch']>,
  expected: Position,
  events: readonly RecordedEvent[],
): Promise<BatchOutcome | null> {
  const last = events[events.length - 1]!.position;
  const handled = handledBy(p, events, undefined);
  const advance: Statement = [
    checkpointSql.advanceFrom,
    [p.name, last.commit.toString(), last.prepare.toString(), events.length, expected.commit.toString(), expected.prepare.toString()],
  ];
  try {
    return await db.transaction(
      async (tx) => {
        const joined = await advancedWith(tx, batchStatementsOf(p, handled), advance);
        const advanced = joined ?? (await Promise.all([onBatch(tx, handled), tx.query(...advance)]))[1];
        if (advanced.rowCount !== 1) throw new CheckpointMoved();
        return { applied: true, checkpoint: last };
      },
      { prelude: p.genericPlans ? `${schemaPrelude(schema)}; ${GENERIC_PLANS}` : schemaPrelude(schema) },
    );
  } catch {
    return null;
  }
}

/**
 * The set-based statements sent at once, the checkpoint's compare-and-set joined to the first of them
 * (they share no table): the compare-and-set's answer. Null, having sent nothing, without statements.
 * The compare-and-set, an UPDATE given last, always ends the last joined statement, whose answer is its.
 */
async function advancedWith(tx: SqlExecutor, statements: readonly Statement[] | null, advance: Statement): Promise<QueryResult | null> {
  if (!statements) return null;
  const [first, ...rest] = statements;
  const joined = joinedStatements(first ? [first, advance] : [advance]).map((j) => j.statement);
  const answers = await Promise.all([...joined, ...rest].map((s) => tx.query(...s)));
  return answers[joined.length - 1]!;
}

/**
 * A batch with nothing for this projector only moves its checkpoint: one compare-and-set
 * statement instead of a transaction, so read models that ignore most events stay cheap.
 */
function skipBatch(db: SqlDb, schema: string, p: Projector, expected: Position, events: readonly RecordedEvent[]): Promise<BatchOutcome> {
  return advanceCheckpoint(db, schema, p, expected, events[events.length - 1]!.position, events.length);
}

/** Moves the checkpoint over `seen` events without a handler here, only from where the caller read it. */
export async function advanceCheckpoint(
  db: SqlDb,
  schema: string,
  p: Projector,
  expected: Position,
  last: Position,
  seen: number,
): Promise<BatchOutcome> {
  const moved = await db.query(checkpointSql.compareAndAdvance(schema), [
    p.name,
    expected.commit.toString(),
    expected.prepare.toString(),
    last.commit.toString(),
    last.prepare.toString(),
    seen,
  ]);
  if (moved.rows.length === 1) return { applied: true, checkpoint: last };
  const row = (await db.query<{ commit: string; prepare: string }>(checkpointSql.readOne(schema), [p.name])).rows[0];
  if (!row) throw new Error(`read model ${p.name} is not installed in schema ${schema}`);
  return { applied: false, checkpoint: toPosition(row) };
}

export function handlerFor(p: Projector, event: RecordedEvent): ProjectionHandler | undefined {
  return p.on[event.type] ?? p.onAny;
}

/**
 * Runs the handlers of a batch and moves the checkpoint, inside the caller's transaction: the
 * set-based form under a savepoint first, and should it fail, the per-event handlers, which name the
 * failing event. `skipped` holds the ids of events an operator recorded as skipped for this projector.
 */
export async function applyEvents(
  tx: SqlExecutor,
  p: Projector,
  events: readonly RecordedEvent[],
  skipped?: ReadonlySet<string>,
): Promise<Position> {
  const { onBatch } = p;
  const handled = handledBy(p, events, skipped);
  const asSet = onBatch !== undefined && handled.length > 0 && (await allOrNothing(tx, () => [onBatch(tx, handled)]));
  if (!asSet) await applyOneByOne(tx, p, events, skipped);
  return advancePast(tx, p, events);
}

/**
 * Every read model's writes of a batch at once, under one savepoint: each sends its statements
 * without waiting for the others (their tables are their own), so the database works through the
 * batch while the next read model's statements are still being built. True when all applied; false
 * when any failed and all were rolled back: then the caller applies the batch read model by read
 * model (applyEvents), where a failure falls back to the handlers and names its event.
 */
export function appliedAtOnce(
  tx: SqlExecutor,
  projectors: readonly Projector[],
  events: readonly RecordedEvent[],
  skips: ReadonlyMap<string, ReadonlySet<string>>,
): Promise<boolean> {
  return allOrNothing(tx, () => projectors.map((p) => writeBatch(tx, p, events, skips.get(p.name))));
}

/**
 * A read model's writes of a batch and its checkpoint's move, its set-based form first, with no
 * savepoint and no fallback: for callers that roll back and apply again should it fail.
 */
export async function writeBatch(
  tx: SqlExecutor,
  p: Projector,
  events: readonly RecordedEvent[],
  skipped: ReadonlySet<string> | undefined,
): Promise<void> {
  const handled = handledBy(p, events, skipped);
  const written = handled.length === 0 ? null : p.onBatch ? p.onBatch(tx, handled) : applyOneByOne(tx, p, handled);
  await Promise.all([written, advancePast(tx, p, events)]);
}

/**
 * Runs the writes `start` sends under a savepoint: true when every one succeeded; false when any
 * failed, everything since the savepoint rolled back. Each write's failure is awaited, so none is
 * left unhandled, and none is thrown: the caller applies again, by a path that names the failure.
 */
export async function allOrNothing(
  tx: SqlExecutor,
  start: () => Iterable<Promise<unknown>> | Promise<Iterable<Promise<unknown>>>,
): Promise<boolean> {
  await tx.query('SAVEPOINT apply_at_once');
  const outcomes = await Promise.allSettled(await start());
  const applied = outcomes.every((o) => o.status === 'fulfilled');
  await tx.query(applied ? 'RELEASE SAVEPOINT apply_at_once' : 'ROLLBACK TO SAVEPOINT apply_at_once');
  return applied;
}

/** The events of a batch the projector applies: those it has a handler for, less those skipped. */
function handledBy(p: Projector, events: readonly RecordedEvent[], skipped: ReadonlySet<string> | undefined): RecordedEvent[] {
  return events.filter((e) => handlerFor(p, e) && !skipped?.has(e.metadata.eventId));
}

/** Moves the projector's checkpoint past the batch, in the caller's transaction; answers where it now stands. */
async function advancePast(tx: SqlExecutor, p: Projector, events: readonly RecordedEvent[]): Promise<Position> {
  const last = events[events.length - 1]!.position;
  await tx.query(checkpointSql.advance, [p.name, last.commit.toString(), last.prepare.toString(), events.length]);
  return last;
}

/**
 * The per-event handlers, in log order. The statements of a `writes` handler are sent without
 * waiting for their answers: the transaction runs statements in the order sent, so a batch's writes
 * share round trips instead of taking one each (a round trip per statement would bound a replay;
 * docs/decisions.md, "Read models"), and a handler that reads still sees every write before it. A failure is
 * pinned on the event whose statement failed first; those after it only found the transaction aborted.
 */
async function applyOneByOne(
  tx: SqlExecutor,
  p: Projector,
  events: readonly RecordedEvent[],
  skipped?: ReadonlySet<string>,
): Promise<void> {
  const unanswered: SentWrite[] = [];
  for (const [index, event] of events.entries()) {
    const handler = handlerFor(p, event);
    if (!handler || skipped?.has(event.metadata.eventId)) continue;
    const failed = handler.statements
      ? sendWrites(tx, handler.statements, event, index, unanswered)
      : await settled(() => handler(tx, event));
    // An earlier write that failed is the cause of whatever fails after it.
    if (failed) throw (await firstFailure(events, unanswered)) ?? new ProjectorEventError(event, index, failed.error);
  }
  const failure = await firstFailure(events, unanswered);
  if (failure) throw failure;
}

/** Sends the event's statements unawaited, onto `unanswered`; answers the error when they cannot be built (a decoder's). */
function sendWrites(
  tx: SqlExecutor,
  statementsOf: NonNullable<ProjectionHandler['statements']>,
  event: RecordedEvent,
  index: number,
  unanswered: SentWrite[],
): { error: unknown } | null {
  let statements: readonly Statement[];
  try {
    statements = statementsOf(event);
  } catch (error) {
    return { error };
  }
  for (const [text, values] of statements) unanswered.push({ index, answer: settled(() => tx.query(text, values)) });
  return null;
}

type SentWrite = { readonly index: number; readonly answer: Promise<{ error: unknown } | null> };

/**
 * Null when `work` succeeded, its error when it threw (at once, as a decoder may, or later); never
 * rejects, so a statement nobody awaits yet leaves no unhandled rejection. `work` starts at once.
 */
async function settled(work: () => Promise<unknown>): Promise<{ error: unknown } | null> {
  try {
    await work();
    return null;
  } catch (error) {
    return { error };
  }
}

/** Once every write sent is answered: the error of the first that failed, named by its event. */
async function firstFailure(events: readonly RecordedEvent[], sent: readonly SentWrite[]): Promise<ProjectorEventError | null> {
  const outcomes = await Promise.all(sent.map((s) => s.answer));
  const at = outcomes.findIndex((o) => o !== null);
  if (at < 0) return null;
  const { index } = sent[at]!;
  return new ProjectorEventError(events[index]!, index, outcomes[at]!.error);
}
