import type { SqlDb } from '../db/sql.js';
import type { RecordedEvent } from '../events/envelope.js';
import { SqlEventStore } from '../events/sql/sql-event-store.js';
import type { EventStore, ReadAllOptions } from '../events/store.js';
import { repointAnalyticsViews } from './analytics/analytics.js';
import { applyToAll, buildFromLog } from './build-from-log.js';
import { quoteIdent, readCheckpoints } from './checkpoints.js';
import { holdAppendersOff } from './inline.js';
import type { Projector } from './projector.js';
import { schemaExists } from './read-model-schema.js';
import { recordedSkips } from './skip.js';

export type ReplayProgress = { readonly events: number; readonly total: number | null; readonly elapsedMs: number };
export type ReplayReport = ReplayProgress & { readonly eventsPerSecond: number };

export type ReplayOptions = {
  readonly db: SqlDb;
  readonly store: EventStore;
  readonly projectors: readonly Projector[];
  readonly schema?: string;
  readonly batchSize?: number;
  readonly onProgress?: (p: ReplayProgress) => void;
};

/**
 * Rebuilds every read model from the log into a fresh schema, then swaps it in atomically.
 * The swap locks the live checkpoint table, so a running engine finishes its batch first, and holds
 * inline appenders off; it catches up inside the same transaction. Afterwards live projectors find
 * their checkpoint moved and continue from the rebuilt one, and inline appends write the new tables.
 * Readers see the old tables or the new ones, never a mix.
 */
export async function replay(options: ReplayOptions): Promise<ReplayReport> {
  const { db, store, projectors } = options;
  const live = options.schema ?? 'rm';
  const rebuild = `${live}_rebuild`;
  const batchSize = options.batchSize ?? 1000;
  const started = Date.now();
  const total = await countEvents(db, store);
  // Events operators skipped live are skipped here too, or the rebuild would differ (or stall).
  const skips = await recordedSkips(store);
  let events = 0;
  const report = () => options.onProgress?.({ events, total, elapsedMs: Date.now() - started });

  let after = await buildFromLog({
    db,
    store,
    projectors,
    schema: rebuild,
    skips,
    batchSize,
    onBatch: (applied) => {
      events += applied.length;
      report();
    },
  });

  await db.transaction(async (tx) => {
    const liveExists = await schemaExists(tx, live);
    if (liveExists) {
      await tx.query(`LOCK TABLE ${quoteIdent(live)}.projection_checkpoints IN ACCESS EXCLUSIVE MODE`);
      await holdAppendersOff(tx, live);
    }
    // Live read models written inline hold no checkpoint to resume from: the swap must take every
    // committed event, which it may as no appender is in flight; asynchronous ones resume after it.
    const inline = liveExists ? (await readCheckpoints(tx, live)).filter((r) => r.inline).map((r) => r.projector) : [];
    const readInSwap: (o: ReadAllOptions) => Promise<RecordedEvent[]> = !(store instanceof SqlEventStore)
      ? (o) => store.readAll(o)
      : inline.length > 0
        ? (o) => store.readAllCommittedUsing(tx, o)
        : (o) => store.readAllUsing(tx, o);
    for (;;) {
      const batch = await readInSwap({ after, maxCount: batchSize });
      if (batch.length === 0) break;
      await applyToAll(tx, rebuild, projectors, batch, skips);
      after = batch[batch.length - 1]!.position;
      events += batch.length;
    }
    await tx.query(`UPDATE ${quoteIdent(rebuild)}.projection_checkpoints SET inline = true WHERE projector = ANY($1::text[])`, [inline]);
    const retired = `${live}_retired`;
    await tx.query(`DROP SCHEMA IF EXISTS ${quoteIdent(retired)} CASCADE`);
    if (await schemaExists(tx, live)) await tx.query(`ALTER SCHEMA ${quoteIdent(live)} RENAME TO ${quoteIdent(retired)}`);
    await tx.query(`ALTER SCHEMA ${quoteIdent(rebuild)} RENAME TO ${quoteIdent(live)}`);
    await repointAnalyticsViews(tx, retired, live);
    await tx.query(`DROP SCHEMA IF EXISTS ${quoteIdent(retired)} CASCADE`);
    await tx.query(`SELECT pg_notify('rm_progress', 'replay')`);
  });
  report();
  const elapsedMs = Date.now() - started;
  return { events, total, elapsedMs, eventsPerSecond: elapsedMs > 0 ? Math.round((events * 1000) / elapsedMs) : events };
}

/** For the progress bar; only the SQL stores can count cheaply. */
export async function countEvents(db: SqlDb, store: EventStore): Promise<number | null> {
  if (store.kind === 'eventstoredb') return null;
  const r = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM es.events');
  return Number(r.rows[0]?.n ?? 0);
}
