import type { SqlExecutor } from '../db/sql.js';
import type { Position } from '../events/position.js';

/** The checkpoint table's SQL; it lives in the read-model schema beside the rows it vouches for. */
export const checkpointSql = {
  lockOne: `SELECT commit_pos::text AS commit, prepare_pos::text AS prepare
            FROM projection_checkpoints WHERE projector = $1 FOR UPDATE`,
  advance: `UPDATE projection_checkpoints
            SET commit_pos = $2, prepare_pos = $3, events_seen = events_seen + $4, updated_at = now()
            WHERE projector = $1`,
  insert: `INSERT INTO projection_checkpoints (projector, version, commit_pos, prepare_pos)
           VALUES ($1, $2, -1, -1) ON CONFLICT (projector) DO NOTHING`,
  /** Moves the checkpoint only from where the caller read it; answers one row when it moved. */
  compareAndAdvance: (schema: string) => `
    WITH moved AS (
      UPDATE ${quoteIdent(schema)}.projection_checkpoints
      SET commit_pos = $4, prepare_pos = $5, events_seen = events_seen + $6, updated_at = now()
      WHERE projector = $1 AND commit_pos = $2 AND prepare_pos = $3
      RETURNING projector)
    SELECT pg_notify('rm_progress', projector) FROM moved`,
  readOne: (schema: string) => `SELECT commit_pos::text AS commit, prepare_pos::text AS prepare
                                FROM ${quoteIdent(schema)}.projection_checkpoints WHERE projector = $1`,
};

export type CheckpointRow = { projector: string; version: number; position: Position; eventsSeen: number };

export async function readCheckpoints(tx: SqlExecutor, schema: string): Promise<CheckpointRow[]> {
  const r = await tx.query<{ projector: string; version: number; commit: string; prepare: string; seen: string }>(
    `SELECT projector, version, commit_pos::text AS commit, prepare_pos::text AS prepare, events_seen::text AS seen
     FROM ${quoteIdent(schema)}.projection_checkpoints`,
  );
  return r.rows.map((row) => ({
    projector: row.projector,
    version: Number(row.version),
    position: toPosition(row),
    eventsSeen: Number(row.seen),
  }));
}

export function toPosition(row: { commit: string; prepare: string }): Position {
  return { commit: BigInt(row.commit), prepare: BigInt(row.prepare) };
}

export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe SQL identifier: ${name}`);
  return `"${name}"`;
}

/** Points unqualified table names of this transaction at one read-model schema. */
export function useSchema(tx: SqlExecutor, schema: string): Promise<unknown> {
  return tx.query(`SET LOCAL search_path TO ${quoteIdent(schema)}, public`);
}
