import type { SqlDb, SqlExecutor } from '../db/sql.js';
import type { RecordedEvent } from '../events/envelope.js';
import { START, type Position } from '../events/position.js';
import type { EventStore } from '../events/store.js';
import { allOrNothing, appliedAtOnce, applyEvents, writeBatch } from './apply-batch.js';
import { quoteIdent, useSchema } from './checkpoints.js';
import type { Projector } from './projector.js';
import { writeInLanes } from './lanes.js';
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
 * Pages one transaction of a lane writes: the next page's writes queue behind this one's instead
 * of waiting for its commit. PGlite has one connection, on which a page read while a transaction is
 * open waits for its end: there each page is its own transaction, the next read between them.
 */
const pagesPerTransaction = (db: SqlDb): number => (db.kind === 'pglite' ? 1 : 4);

/**
 * The build's lanes: each writes its read models in transactions of its own, on a connection of its
 * own, so the writes of one lane do not wait for another's. On a server each read model is a lane,
 * two written at a time, whichever are free: one backend writing every read model held a replay to
 * one core (docs/performance.md, "What each read model adds to a replay"). PGlite has one
 * connection: one lane of all.
 */
const lanesOf = (o: BuildFromLog): { lanes: (readonly Projector[])[]; writers: number } =>
  o.db.kind === 'pglite' ? { lanes: [o.projectors], writers: 1 } : { lanes: o.projectors.map((p) => [p]), writers: 2 };

/**
 * Drops `schema`, installs every read model in it and applies the log from its start, each lane a
 * chunk of pages per transaction, at most two chunks ahead of the slowest. The lanes commit apart:
 * until the build ends its read models stand at different places in the log, so a replay swaps its
 * schema in only then and a time travel marks its schema unfinished until then. Answers the
 * position of the last event every lane applied (START for none).
 */
export async function buildFromLog(o: BuildFromLog): Promise<Position> {
  await o.db.exec(`DROP SCHEMA IF EXISTS ${quoteIdent(o.schema)} CASCADE`);
  await installReadModels(o.db, o.projectors, o.schema);
  if (o.comment) await commentOnSchema(o.db, o.schema, o.comment);
  const { lanes, writers } = lanesOf(o);
  const chunkOf = chunksOf(pagesOf(o), pagesPerTransaction(o.db));
  let after: Position = START;
  await writeInLanes({
    lanes: lanes.length,
    writers,
    ahead: 2,
    next: chunkOf,
    write: (lane, pages) => o.db.transaction((tx) => writePages(tx, o, lanes[lane]!, pages)),
    written: (pages) => {
      for (const page of pages) {
        after = page[page.length - 1]!.position;
        o.onBatch(page);
      }
    },
  });
  return after;
}

/** Says on the schema itself what it holds (time travel marks its builds so). */
export function commentOnSchema(db: SqlDb, schema: string, comment: string): Promise<void> {
  return db.exec(`COMMENT ON SCHEMA ${quoteIdent(schema)} IS '${comment.replaceAll("'", "''")}'`);
}

/** Up to `most` pages at a time; null once the pages have ended (pagesOf then answers null for good). */
function chunksOf(next: () => Promise<readonly RecordedEvent[] | null>, most: number): () => Promise<(readonly RecordedEvent[])[] | null> {
  return async () => {
    const pages: (readonly RecordedEvent[])[] = [];
    while (pages.length < most) {
      const page = await next();
      if (page === null) break;
      pages.push(page);
    }
    return pages.length > 0 ? pages : null;
  };
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
 * A lane's read models' writes of a chunk's pages. Each read model writes its pages in order, each
 * as soon as its previous page is answered, without waiting for the other read models, so the
 * database works through one page while the next is built. Should any write fail, everything since
 * the savepoint is rolled back and the pages are applied one by one (applyToAll), where a failure
 * falls back to the handlers and names its event.
 */
async function writePages(
  tx: SqlExecutor,
  o: BuildFromLog,
  projectors: readonly Projector[],
  pages: readonly (readonly RecordedEvent[])[],
): Promise<void> {
  await useSchema(tx, o.schema);
  const applied = await allOrNothing(tx, () =>
    projectors.map((p) =>
      pages.reduce((before, page) => before.then(() => writeBatch(tx, p, page, o.skips.get(p.name))), Promise.resolve()),
    ),
  );
  if (!applied) for (const page of pages) await applyToAll(tx, o.schema, projectors, page, o.skips);
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
