import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresDb } from '../src/db/postgres-db.js';

/**
 * Runs `fn` against a database of its own on the server of `url` (named `<prefix>_<random hex>`),
 * dropped afterwards whatever happens, so runs neither see nor leave each other's rows.
 */
export async function withScratchDatabase<T>(url: string, prefix: string, fn: (scratchUrl: string) => Promise<T>): Promise<T> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await adminQuery(url, `CREATE DATABASE ${name}`);
  try {
    return await fn(databaseUrl(url, name));
  } finally {
    // FORCE: a child process killed mid-run may leave a session open, which a plain DROP refuses.
    await adminQuery(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

/** `url` with its database replaced by `name`. */
export function databaseUrl(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * One statement on a connection of its own (CREATE/DROP DATABASE cannot run inside a pool's
 * transaction); answers the first column of its first row, if any.
 */
export async function adminQuery(url: string, sql: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<Record<string, string>>(sql);
    return Object.values(r.rows[0] ?? {})[0];
  } finally {
    await client.end();
  }
}

/** `fn` with a SqlDb (a pool) on a scratch database of its own, closed before the database is dropped. */
export function withScratchDb<T>(url: string, prefix: string, fn: (db: PostgresDb, scratchUrl: string) => Promise<T>): Promise<T> {
  return withScratchDatabase(url, prefix, async (scratchUrl) => {
    const db = new PostgresDb(scratchUrl);
    try {
      return await fn(db, scratchUrl);
    } finally {
      await db.close();
    }
  });
}
