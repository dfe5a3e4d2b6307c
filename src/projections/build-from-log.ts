import type { SqlDb, SqlExecutor } from '../db/sql.js';
import type { RecordedEvent } from '../events/envelope.js';
import { START, type Position } from '../events/position.js';
import type { EventStore } from '../events/store.js';
import { allOrNothing, appliedAtOnce, applyEvents, writeBatch } from './apply-batch.js';
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
 * Pages one transaction of a build writes: the next page's writes queue behind this one's instead
 * of waiting for its commit. PGlite has one connection, on which a page read while a transaction is
 * open would wait for its end: there each page is its own transaction, read before it begins.
 */
const pagesPerTransaction = (db: SqlDb): number => (db.kind === 'pglite' ? 1 : 4);

/**
 * Drops `schema`, installs every read model in it and applies the log from its start, a few pages
 * per transaction. Answers the position of the last event applied (START for none).
 */
export async function buildFromLog(o: BuildFromLog): Promise<Position> {
  await o.db.exec(`DROP SCHEMA IF EXISTS ${quoteIdent(o.schema)} CASCADE`);
  await installReadModels(o.db, o.projectors, o.schema);
  if (o.comment) await o.db.exec(`COMMENT ON SCHEMA ${quoteIdent(o.schema)} IS '${o.comment.replaceAll("'", "''")}'`);
  const next = pagesOf(o);
  let after: Position = START;
  for (;;) {
    const written = await o.db.transaction((tx) => writePages(tx, o, next));
    for (const page of written.pages) {
      after = page[page.length - 1]!.position;
      o.onBatch(page);
    }
    if (written.ended) return after;
  }
}

/**
 * The log's pages in order, each read while the one before it is applied, on another connection:
 * the log's reads and the read models' writes overlap instead of taking turns. Null once the log,
 * or the part of it `keep` takes, has ended.
 */
function pagesOf(o: BuildFromLog): () => Promise<readonly RecordedEvent[] | null> {
  let reading: Promise<readonly RecordedEvent[]> | null = readAhead(o, START);
  return async () => {
    if (!reading) return null;
    const batch = await reading;
    const applied = o.keep ? o.keep(batch) : batch;
    reading = applied.length === batch.length && applied.length > 0 ? readAhead(o, applied[applied.length - 1]!.position) : null;
    return applied.length > 0 ? applied : null;
  };
}

/** The page after `after`; a read that fails while nobody awaits it yet is not left unhandled. */
function readAhead(o: BuildFromLog, after: Position): Promise<readonly RecordedEvent[]> {
  const page = o.store.readAll({ after, maxCount: o.batchSize });
  page.catch(() => undefined);
  return page;
}

/**
 * Up to pagesPerTransaction pages. Each read model writes its pages in order, each as soon as its
 * previous page is answered, without waiting for the other read models or the commit, so the
 * database works through one page while the next is built. Should any write fail, everything
 * since the savepoint is rolled back and the pages are applied one by one (applyToAll), where a
 * failure falls back to the handlers and names its event.
 */
async function writePages(
  tx: SqlExecutor,
  o: BuildFromLog,
  next: () => Promise<readonly RecordedEvent[] | null>,
): Promise<{ pages: (readonly RecordedEvent[])[]; ended: boolean }> {
  await useSchema(tx, o.schema);
  const pages: (readonly RecordedEvent[])[] = [];
  let ended = false;
  const applied = await allOrNothing(tx, async () => {
    const written = new Map<Projector, Promise<void>>();
    const most = pagesPerTransaction(o.db);
    while (pages.length < most && !ended) {
      const page = await next();
      if (page === null) ended = true;
      else {
        pages.push(page);
        for (const p of o.projectors) {
          const after = (written.get(p) ?? Promise.resolve()).then(() => writeBatch(tx, p, page, o.skips.get(p.name)));
          // Awaited by allOrNothing; should the next page's read fail first, a failed write must not go unhandled meanwhile.
          after.catch(() => undefined);
          written.set(p, after);
        }
      }
    }
    return written.values();
  });
  if (!applied) for (const page of pages) await applyToAll(tx, o.schema, o.projectors, page, o.skips);
  return { pages, ended };
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
