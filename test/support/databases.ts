import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PgliteDb } from '../../src/db/pglite-db.js';
import { PostgresDb } from '../../src/db/postgres-db.js';
import type { SqlDb } from '../../src/db/sql.js';

export type TestDatabase = { readonly db: SqlDb; readonly url: string | null; drop(): Promise<void> };

/** The backend the whole suite runs on: PostgreSQL when DATABASE_URL is set, PGlite otherwise. */
export const mainBackend: 'postgres' | 'pglite' = process.env.DATABASE_URL ? 'postgres' : 'pglite';

export function openTestDatabase(kind: 'postgres' | 'pglite' = mainBackend): Promise<TestDatabase> {
  return kind === 'postgres' ? createPostgresDatabase() : openPglite();
}

async function openPglite(): Promise<TestDatabase> {
  const db = await PgliteDb.open();
  return { db, url: null, drop: () => db.close() };
}

/** A fresh database per suite, so suites never see each other's rows, locks or notifications. */
async function createPostgresDatabase(): Promise<TestDatabase> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL is not set');
  const name = `dss_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(base, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(base);
  url.pathname = `/${name}`;
  const db = new PostgresDb(url.toString());
  return {
    db,
    url: url.toString(),
    drop: async () => {
      await db.close();
      await withAdmin(base, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

async function withAdmin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Opens a second SqlDb on the same database (a second service instance). */
export function openSecondConnection(t: TestDatabase, applicationName?: string): SqlDb {
  if (!t.url) throw new Error('a second instance needs a server database');
  return new PostgresDb(t.url, applicationName ? { applicationName } : {});
}

/** A scratch database for the calling describe block, dropped after it; its tests skip without DATABASE_URL. */
export function onScratchPostgres(): () => TestDatabase {
  let t: TestDatabase | undefined;
  before(async function () {
    if (!process.env.DATABASE_URL) return this.skip();
    t = await openTestDatabase('postgres');
  });
  after(() => t?.drop());
  return () => t!;
}
