import type { SqlExecutor } from '../db/sql.js';
import type { Position } from '../events/position.js';

const advance = `UPDATE projection_checkpoints
  SET commit_pos = $2, prepare_pos = $3, events_seen = events_seen + $4, updated_at = now(),
      stalled_commit = NULL, stalled_prepare = NULL, stalled_error = NULL, stalled_since = NULL
  WHERE projector = $1`;

/** The checkpoint table's SQL; it lives in the read-model schema beside the rows it vouches for. */
export const checkpointSql = {
  lockOne: `SELECT commit_pos::text AS commit, prepare_pos::text AS prepare
            FROM projection_checkpoints WHERE projector = $1 FOR UPDATE`,
  advance,
  /** advance, only from where the caller read it ($5, $6): moves one row or none. */
  advanceFrom: `${advance} AND commit_pos = $5 AND prepare_pos = $6`,
  insert: `INSERT INTO projection_checkpoints (projector, version, commit_pos, prepare_pos)
           VALUES ($1, $2, -1, -1) ON CONFLICT (projector) DO NOTHING`,
  /** Moves the checkpoint only from where the caller read it; answers one row when it moved. */
  compareAndAdvance: (schema: string): string => `
    WITH moved AS (
      UPDATE ${quoteIdent(schema)}.projection_checkpoints
      SET commit_pos = $4, prepare_pos = $5, events_seen = events_seen + $6, updated_at = now(),
          stalled_commit = NULL, stalled_prepare = NULL, stalled_error = NULL, stalled_since = NULL
      WHERE projector = $1 AND commit_pos = $2 AND prepare_pos = $3
      RETURNING projector)
    SELECT pg_notify('rm_progress', projector) FROM moved`,
  /** Records a stall, only while the checkpoint still stands where the failing batch began. */
  markStalled: (schema: string): string => `
    UPDATE ${quoteIdent(schema)}.projection_checkpoints
    SET stalled_commit = $4, stalled_prepare = $5, stalled_error = $6, stalled_since = coalesce(stalled_since, now())
    WHERE projector = $1 AND commit_pos = $2 AND prepare_pos = $3`,
  readOne: (schema: string): string => `SELECT commit_pos::text AS commit, prepare_pos::text AS prepare
                                FROM ${quoteIdent(schema)}.projection_checkpoints WHERE projector = $1`,
};

/** Where a projector stopped on an event it cannot apply; the error's text stays in the log. */
export type Stall = { readonly position: Position; readonly errorClass: string; readonly since: Date };

export type CheckpointRow = {
  projector: string;
  version: number;
  position: Position;
  eventsSeen: number;
  stalled: Stall | null;
  /** Projected inside every append's transaction (see ./inline.ts); position is where that began. */
  inline: boolean;
};

export async function readCheckpoints(tx: SqlExecutor, schema: string): Promise<CheckpointRow[]> {
  type Row = {
    projector: string;
    version: number;
    commit: string;
    prepare: string;
    seen: string;
    stalled_commit: string | null;
    stalled_prepare: string | null;
    stalled_error: string | null;
    stalled_since: string | Date | null;
    inline: boolean;
  };
  const r = await tx.query<Row>(
    `SELECT projector, version, commit_pos::text AS commit, prepare_pos::text AS prepare, events_seen::text AS seen,
            stalled_commit::text AS stalled_commit, stalled_prepare::text AS stalled_prepare, stalled_error, stalled_since, inline
     FROM ${quoteIdent(schema)}.projection_checkpoints`,
  );
  return r.rows.map((row) => ({
    projector: row.projector,
    version: Number(row.version),
    position: toPosition(row),
    eventsSeen: Number(row.seen),
    inline: row.inline,
    stalled:
      row.stalled_commit === null || row.stalled_prepare === null
        ? null
        : {
            position: toPosition({ commit: row.stalled_commit, prepare: row.stalled_prepare }),
            errorClass: row.stalled_error ?? 'Error',
            since: new Date(row.stalled_since ?? 0),
          },
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
  return tx.query(schemaPrelude(schema));
}

/** useSchema as a transaction's prelude: it travels with BEGIN, one statement fewer (TransactionOptions.prelude). */
export const schemaPrelude = (schema: string): string => `SET LOCAL search_path TO ${quoteIdent(schema)}, public`;
