import type { SqlDb } from '../../src/db/sql.js';

/**
 * The plan PostgreSQL makes for a statement run with these values (each given as the text of a
 * literal), as EXPLAIN prints it. `generic`: the plan a prepared statement caches for any values,
 * as it is after a few runs on a connection. `schema`: the search_path's first schema.
 */
export function planOf(
  db: SqlDb,
  text: string,
  values: readonly string[],
  options: { readonly generic?: boolean; readonly schema?: string } = {},
): Promise<string> {
  return db.transaction(async (tx) => {
    if (options.schema) await tx.query(`SET LOCAL search_path TO ${options.schema}, public`);
    if (options.generic) await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
    await tx.query(`PREPARE planned AS ${text}`);
    const literals = values.map((v) => `'${v.replaceAll("'", "''")}'`).join(', ');
    const explained = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE planned (${literals})`);
    await tx.query('DEALLOCATE planned');
    return explained.rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}
