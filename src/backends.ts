import { join } from 'node:path';
import type { Config } from './config.js';
import { lockDataDir, privateDir } from './data-dir.js';
import { PgliteDb } from './db/pglite-db.js';
import { PostgresDb, type QueryKind } from './db/postgres-db.js';
import type { SqlDb } from './db/sql.js';
import { EventStoreDbStore } from './events/eventstoredb/eventstoredb-store.js';
import { SqlEventStore } from './events/sql/sql-event-store.js';
import type { EventStore } from './events/store.js';
import type { Metrics } from './observability/metrics.js';

export type Backends = {
  readonly db: SqlDb;
  /**
   * Where asynchronous projectors write: on PostgreSQL a small pool of its own, so a projector's
   * batch never queues behind commands for a connection (nor commands behind it).
   */
  readonly projectionsDb: SqlDb;
  readonly store: EventStore;
  close(): Promise<void>;
};

/**
 * Picks the backends from configuration: DESIGN.md's "Backends at a glance" table. With `metrics`,
 * PostgreSQL's pools count what they send (db_queries_total).
 */
export async function openBackends(config: Config, metrics?: Metrics): Promise<Backends> {
  const counted = (pool: string) => (metrics ? { onQuery: (kind: QueryKind) => metrics.dbQueries.inc({ pool, kind }) } : {});
  const { db, release } = config.databaseUrl
    ? { db: new PostgresDb(config.databaseUrl, counted('requests')), release: async () => undefined }
    : await openEmbedded(config.dataDir);
  const store: EventStore = config.eventstoreUrl ? EventStoreDbStore.connect(config.eventstoreUrl) : await SqlEventStore.open(db);
  const projectionsDb = config.databaseUrl
    ? new PostgresDb(config.databaseUrl, { max: 4, applicationName: 'data-sharing-service/projections', ...counted('projections') })
    : db;
  return {
    db,
    projectionsDb,
    store,
    close: async () => {
      await store.close();
      if (projectionsDb !== db) await projectionsDb.close();
      await db.close();
      await release();
    },
  };
}

/** PGlite in DATA_DIR/pgdata, held by this process alone until released (contract §10.12). */
async function openEmbedded(dataDir: string): Promise<{ db: SqlDb; release: () => Promise<void> }> {
  const lock = await lockDataDir(dataDir);
  try {
    const dir = join(dataDir, 'pgdata');
    await privateDir(dir);
    return { db: await PgliteDb.open(dir), release: () => lock.release() };
  } catch (e) {
    await lock.release();
    throw e;
  }
}
