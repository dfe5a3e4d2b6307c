import type { SqlDb } from '../db/sql.js';
import { comparePositions, formatPosition, START, type Position } from '../events/position.js';
import type { EventStore } from '../events/store.js';
import { ANALYTICS_SCHEMA } from './analytics/analytics.js';
import { buildFromLog, commentOnSchema } from './build-from-log.js';
import { countWithinCut, describeCut, withinCut, type LogCut } from './log-cut.js';
import type { Projector } from './projector.js';
import type { ReplayProgress, ReplayReport } from './replay.js';
import { recordedSkips } from './skip.js';

export type TimeTravelOptions = {
  readonly db: SqlDb;
  readonly store: EventStore;
  readonly projectors: readonly Projector[];
  readonly until: LogCut;
  /** Where the read models as of the cut are built; dropped first, never swapped in. */
  readonly target: string;
  /** The live read-model schema, which the build must not touch. */
  readonly live?: string;
  readonly batchSize?: number;
  readonly onProgress?: (p: ReplayProgress) => void;
};

/** Position of the last event the build applied; null when the cut holds no event. */
export type TimeTravelReport = ReplayReport & { readonly lastApplied: Position | null };

/** The target or the cut would not give a time travel of the live log beside it. */
export class TimeTravelRefusedError extends Error {
  override readonly name = 'TimeTravelRefusedError';
}

/** Schemas the service keeps its own state in (see the *.sql files), whatever the live read models are called. */
const SERVICE_SCHEMAS = [
  'es',
  ANALYTICS_SCHEMA,
  'limits',
  'auth',
  'exports',
  'files',
  'keys',
  'reactors',
  'queue',
  'public',
  'information_schema',
];
const MAX_IDENTIFIER = 63;
/** Marks a schema as a time travel's, so a later one may drop it and no other schema is ever dropped. */
const MARK = 'time travel build';

/** Why `target` cannot hold a time travel beside the live schema `live`, or null when it can. */
export function targetSchemaProblem(target: string, live = 'rm'): string | null {
  if (!/^[a-z_][a-z0-9_]*$/.test(target) || target.length > MAX_IDENTIFIER) {
    const shown = JSON.stringify(target.slice(0, MAX_IDENTIFIER + 1));
    return `a schema name is 1 to ${MAX_IDENTIFIER} characters of a-z, 0-9 and _, not starting with a digit: ${shown}`;
  }
  if (target === live) return `${target} is the live read-model schema; a time travel builds beside it, never into it`;
  if ([`${live}_rebuild`, `${live}_retired`].includes(target)) return `${target} is used by npm run replay while it swaps`;
  if (SERVICE_SCHEMAS.includes(target) || target.startsWith('pg_')) return `${target} is a schema the service or PostgreSQL uses`;
  return null;
}

/**
 * Builds every read model as it stood at a cut of the log into its own schema, for looking back:
 * the result equals a replay of the log truncated at the cut. The live schema and its checkpoints
 * are never read or written, so no lock is needed. Events operators skipped are skipped here too,
 * wherever in the log the skip was recorded: without it the build would stop at the same event.
 */
export async function timeTravel(options: TimeTravelOptions): Promise<TimeTravelReport> {
  const { db, store, projectors, until, target } = options;
  const problem = targetSchemaProblem(target, options.live);
  if (problem) throw new TimeTravelRefusedError(problem);
  await refuseUnlessTimeTravelSchema(db, target);
  await refuseBeyondHead(store, until);

  const started = Date.now();
  const total = await countWithinCut(db, store, until);
  let events = 0;
  const report = () => options.onProgress?.({ events, total, elapsedMs: Date.now() - started });
  const last = await buildFromLog({
    db,
    store,
    projectors,
    schema: target,
    skips: await recordedSkips(store),
    batchSize: options.batchSize ?? 1000,
    // Its read models stand at different places until the build ends (buildFromLog).
    comment: `${MARK}, unfinished: as of ${describeCut(until)}`,
    keep: (batch) => withinCut(until, batch),
    onBatch: (applied) => {
      events += applied.length;
      report();
    },
  });
  await commentOnSchema(db, target, `${MARK} as of ${describeCut(until)}`);
  const elapsedMs = Date.now() - started;
  return {
    events,
    total,
    elapsedMs,
    eventsPerSecond: elapsedMs > 0 ? Math.round((events * 1000) / elapsedMs) : events,
    lastApplied: comparePositions(last, START) === 0 ? null : last,
  };
}

/** Only a schema an earlier time travel built may be dropped: anything else may be someone's data. */
async function refuseUnlessTimeTravelSchema(db: SqlDb, target: string): Promise<void> {
  const r = await db.query<{ note: string | null }>(
    `SELECT obj_description(oid, 'pg_namespace') AS note FROM pg_namespace WHERE nspname = $1`,
    [target],
  );
  const found = r.rows[0];
  if (found && !found.note?.startsWith(MARK)) {
    throw new TimeTravelRefusedError(`schema ${target} exists and was not built by a time travel; choose another name or drop it yourself`);
  }
}

/** A position the log has not reached is most likely a typo; answering "now" for it would mislead. */
async function refuseBeyondHead(store: EventStore, until: LogCut): Promise<void> {
  if (until.kind !== 'position') return;
  const head = await store.headPosition();
  if (!head) throw new TimeTravelRefusedError('the log is empty; there is nothing to travel back to');
  if (comparePositions(until.position, head) > 0) {
    throw new TimeTravelRefusedError(`the log ends at ${formatPosition(head)}; ${formatPosition(until.position)} is beyond it`);
  }
}
