import type { SqlExecutor } from './sql.js';

/**
 * The ALTERs that move a schema's compressible columns (TOAST storage extended or main, so not a
 * column set EXTERNAL on purpose) to lz4, on a server built with it and only where not done yet.
 */
const pending = `
  SELECT format('ALTER TABLE %I.%I ALTER COLUMN %I SET COMPRESSION lz4', n.nspname, c.relname, a.attname) AS alter
  FROM pg_attribute a
  JOIN pg_class c ON c.oid = a.attrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = $1 AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
    AND a.attstorage IN ('x', 'm') AND a.attcompression IS DISTINCT FROM 'l'
    AND EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals))
  ORDER BY c.relname, a.attnum`;

/**
 * Values PostgreSQL compresses (a consent receipt's JWS, a receipt event's data: a few kB each) go
 * compressed with lz4 instead of the default pglz, which costs several times the CPU for about the
 * same size (docs/decisions.md, "Read models"). Only the column's setting changes: values stored
 * before keep theirs and read as ever. PGlite has no lz4; there nothing changes. Idempotent.
 */
export async function compressWithLz4(db: SqlExecutor, schema: string): Promise<void> {
  const alters = await db.query<{ alter: string }>(pending, [schema]);
  for (const { alter } of alters.rows) await db.query(alter);
}
