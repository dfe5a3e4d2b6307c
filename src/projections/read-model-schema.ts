import { readFile } from 'node:fs/promises';
import type { SqlDb, SqlExecutor } from '../db/sql.js';
import { checkpointSql, quoteIdent, readCheckpoints, useSchema } from './checkpoints.js';
import type { Projector } from './projector.js';

const checkpointsDdl = readFile(new URL('./checkpoints.sql', import.meta.url), 'utf8');

/**
 * Creates a read-model schema with every projector's tables and a checkpoint row for each
 * (a new projector starts from the beginning of the log). Idempotent.
 */
export async function installReadModels(db: SqlDb, projectors: readonly Projector[], schema: string): Promise<void> {
  const ddl = await checkpointsDdl;
  await db.transaction(async (tx) => {
    // Instances starting together on a fresh database would otherwise collide on CREATE.
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`read-models:${schema}`]);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await useSchema(tx, schema);
    for (const statement of splitStatements(ddl)) await tx.query(statement);
    for (const p of projectors) {
      for (const statement of splitStatements(p.schemaSql)) await tx.query(statement);
      await tx.query(checkpointSql.insert, [p.name, p.version]);
    }
  });
}

/** Projectors whose tables were built by other code than what runs now (a version bump). */
export async function staleProjectors(db: SqlDb, projectors: readonly Projector[], schema: string): Promise<string[]> {
  const stored = new Map((await readCheckpoints(db, schema)).map((c) => [c.projector, c.version]));
  return projectors.filter((p) => stored.has(p.name) && stored.get(p.name) !== p.version).map((p) => p.name);
}

export async function schemaExists(db: SqlExecutor, schema: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  return r.rowCount > 0;
}

/** Extended-protocol queries take one statement each; DDL files are split on their semicolons. */
export function splitStatements(sql: string): string[] {
  const withoutComments = sql.replace(/--[^\n]*/g, '');
  return withoutComments
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter(Boolean);
}
