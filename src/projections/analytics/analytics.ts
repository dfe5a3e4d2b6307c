import { readFile } from 'node:fs/promises';
import type { SqlDb, SqlExecutor } from '../../db/sql.js';
import { quoteIdent, useSchema } from '../checkpoints.js';
import { splitStatements } from '../read-model-schema.js';

/** The schema analysts query (docs/analytics.md); its views are the contract, the read models are not. */
export const ANALYTICS_SCHEMA = 'analytics';

const viewsDdl = readFile(new URL('./analytics.sql', import.meta.url), 'utf8');

/** Creates or re-creates every analytics view over the read models of `readModelSchema`. Idempotent. */
export async function installAnalyticsViews(db: SqlDb, readModelSchema: string): Promise<void> {
  await db.transaction((tx) => defineViews(tx, readModelSchema));
}

/**
 * Inside replay's swap, after the rebuilt schema took the live name: views bind to tables, not to
 * names, so they still read the retired tables and would go with them. Points them at the new ones,
 * and only when they read the retired schema: a rebuild of any other schema leaves them alone.
 */
export async function repointAnalyticsViews(tx: SqlExecutor, retired: string, live: string): Promise<void> {
  const bound = await tx.query(
    `SELECT 1 FROM pg_depend d
     JOIN pg_rewrite w ON w.oid = d.objid
     JOIN pg_class v ON v.oid = w.ev_class
     JOIN pg_namespace vn ON vn.oid = v.relnamespace
     JOIN pg_class t ON t.oid = d.refobjid
     JOIN pg_namespace tn ON tn.oid = t.relnamespace
     WHERE vn.nspname = $1 AND tn.nspname = $2 LIMIT 1`,
    [ANALYTICS_SCHEMA, retired],
  );
  if (bound.rowCount > 0) await defineViews(tx, live);
}

async function defineViews(tx: SqlExecutor, readModelSchema: string): Promise<void> {
  // Instances starting together would otherwise race on CREATE OR REPLACE VIEW.
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`views:${ANALYTICS_SCHEMA}`]);
  await tx.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(ANALYTICS_SCHEMA)}`);
  await useSchema(tx, readModelSchema);
  for (const statement of splitStatements(await viewsDdl)) await tx.query(statement);
}
