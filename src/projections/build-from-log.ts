import type { SqlDb, SqlExecutor } from '../db/sql.js';
import type { RecordedEvent } from '../events/envelope.js';
import { START, type Position } from '../events/position.js';
import type { EventStore } from '../events/store.js';
import { appliedAtOnce, applyEvents } from './apply-batch.js';
import { quoteIdent, useSchema } from './checkpoints.js';
import type { Projector } from './projector.js';
import { installReadModels } from './read-model-schema.js';

/** Events operators skipped, by projector name (see ./skip.ts). */
export type Skips = ReadonlyMap<string, ReadonlySet<string>>;

export type BuildFromLog = {
  readonly db: SqlDb;
  readonly store: EventStore;
  readonly projectors: readonly Projector[];
  readonly schema: string;
  readonly skips: Skips;
  readonly batchSize: number;
  /** Set on the schema as soon as it exists, so even a build cut short says what made it. */
  readonly comment?: string;
  /** The leading part of a batch to apply; when it keeps less than the whole batch, the build ends there. */
  readonly keep?: (batch: readonly RecordedEvent[]) => readonly RecordedEvent[];
  readonly onBatch: (applied: readonly RecordedEvent[]) => void;
};

/**
 * Drops `schema`, installs every read model in it and applies the log from its start, one
 * transaction per batch. Answers the position of the last event applied (START for none).
 */
export async function buildFromLog(o: BuildFromLog): Promise<Position> {
  await o.db.exec(`DROP SCHEMA IF EXISTS ${quoteIdent(o.schema)} CASCADE`);
  await installReadModels(o.db, o.projectors, o.schema);
  if (o.comment) await o.db.exec(`COMMENT ON SCHEMA ${quoteIdent(o.schema)} IS '${o.comment.replaceAll("'", "''")}'`);
  let after: Position = START;
  let reading = readAhead(o, after);
  for (;;) {
    const batch = await reading;
    const applied = o.keep ? o.keep(batch) : batch;
    if (applied.length === 0) return after;
    const whole = applied.length === batch.length;
    // The next page is read while this one is applied, on another connection: the log's reads and
    // the read models' writes overlap instead of taking turns.
    if (whole) reading = readAhead(o, applied[applied.length - 1]!.position);
    await o.db.transaction((tx) => applyToAll(tx, o.schema, o.projectors, applied, o.skips));
    after = applied[applied.length - 1]!.position;
    o.onBatch(applied);
    if (!whole) return after;
  }
}

/** The page after `after`; a read that fails while nobody awaits it yet is not left unhandled. */
function readAhead(o: BuildFromLog, after: Position): Promise<readonly RecordedEvent[]> {
  const page = o.store.readAll({ after, maxCount: o.batchSize });
  page.catch(() => undefined);
  return page;
}

export async function applyToAll(
  tx: SqlExecutor,
  schema: string,
  projectors: readonly Projector[],
  batch: readonly RecordedEvent[],
  skips: Skips,
): Promise<void> {
  await useSchema(tx, schema);
  if (await appliedAtOnce(tx, projectors, batch, skips)) return;
  for (const p of projectors) await applyEvents(tx, p, batch, skips.get(p.name));
}
