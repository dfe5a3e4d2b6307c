/**
 * npm run bench: throughput and latency of the service's core paths, printed as a table.
 * Runs on the embedded PGlite always, and on PostgreSQL too when DATABASE_URL is set
 * (a scratch database is created and dropped). BENCH_EVENTS sets the size (default 5000),
 * BENCH_SECONDS how long each HTTP route is loaded (default 5).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PgliteDb } from '../src/db/pglite-db.js';
import { PostgresDb } from '../src/db/postgres-db.js';
import { benchEventStore } from './event-store.js';
import { benchHttp } from './http.js';
import { type Row, table } from './measure.js';

async function main(): Promise<void> {
  const n = Number(process.env.BENCH_EVENTS ?? 5000);
  const rows: Row[] = [];

  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const lite = await PgliteDb.open();
  rows.push(...(await benchEventStore('pglite', lite, n)));
  rows.push(...(await benchHttp('pglite', lite, seconds)));
  await lite.close();

  if (process.env.DATABASE_URL) {
    const name = `dss_bench_${randomBytes(4).toString('hex')}`;
    const admin = async (sql: string) => {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await c.connect();
      await c.query(sql).finally(() => c.end());
    };
    await admin(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    const db = new PostgresDb(url.toString());
    try {
      rows.push(...(await benchEventStore('postgres', db, n)));
      rows.push(...(await benchHttp('postgres', db, seconds)));
    } finally {
      await db.close();
      await admin(`DROP DATABASE ${name} WITH (FORCE)`);
    }
  }
  process.stdout.write(`${table(rows)}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
