import type { SqlDb } from '../../src/db/sql.js';

export type Tables = Record<string, string[]>;

/** Every row of every table of a schema, as JSON, sorted; rows without their wall-clock update time. */
export async function tablesOf(db: SqlDb, schema: string): Promise<Tables> {
  const names = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY 1`,
    [schema],
  );
  const tables: Tables = {};
  for (const { table_name: name } of names.rows) {
    const rows = await db.query<{ row: string }>(`SELECT (to_jsonb(t) - 'updated_at')::text AS row FROM "${schema}"."${name}" t`);
    tables[name] = rows.rows.map((r) => r.row).sort();
  }
  return tables;
}
