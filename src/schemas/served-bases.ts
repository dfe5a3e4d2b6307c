import { readFile } from 'node:fs/promises';
import type { SqlDb } from '../db/sql.js';
import { BUILTIN_NAMES } from './builtins.js';

const sql = {
  recorded: 'SELECT base FROM schemas.served_bases ORDER BY first_served_at, base',
  record: 'INSERT INTO schemas.served_bases (base) SELECT unnest($1::text[]) ON CONFLICT (base) DO NOTHING',
  readModels: `SELECT to_regclass('rm.documents') IS NOT NULL AND to_regclass('rm.copy_versions') IS NOT NULL AS present`,
  storedIds: `SELECT schema_ref FROM rm.documents WHERE schema_ref IS NOT NULL
              UNION SELECT schema_ref FROM rm.copy_versions WHERE schema_ref IS NOT NULL`,
};

/** A stored built-in id: `{base}/core/<Name>.json`; documents and copies store one only once it named a built-in. */
const STORED_BUILTIN_ID = new RegExp(`^(.+)/core/(?:${BUILTIN_NAMES.join('|')})\\.json$`);

/**
 * Contract §10.13: records `current` among the schema bases this database has been served under
 * and answers all of them. A database older than the record has its earlier bases read, once, off
 * the built-in ids its documents and copies stored.
 */
export async function servedSchemaBases(db: SqlDb, current: string): Promise<string[]> {
  await db.exec(await readFile(new URL('./served-bases.sql', import.meta.url), 'utf8'));
  const recorded = (await db.query<{ base: string }>(sql.recorded)).rows;
  const earlier = recorded.length === 0 ? await storedBases(db) : [];
  await db.query(sql.record, [[current, ...earlier]]);
  return (await db.query<{ base: string }>(sql.recorded)).rows.map((r) => r.base);
}

async function storedBases(db: SqlDb): Promise<string[]> {
  if (!(await db.query<{ present: boolean }>(sql.readModels)).rows[0]?.present) return [];
  const ids = (await db.query<{ schema_ref: string }>(sql.storedIds)).rows;
  return [...new Set(ids.map((r) => STORED_BUILTIN_ID.exec(r.schema_ref)?.[1]).filter((b): b is string => b !== undefined))];
}
