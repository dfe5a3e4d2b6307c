import { among } from '../db/listed-params.js';
import type { Statement } from './projector.js';

/** A row as its table names its columns (snake_case keys). */
export type Row = Readonly<Record<string, unknown>>;

/** A table's write in both forms: `one` per event, `many` for a run of events (no statement for none). */
export type TableWrite = {
  one(row: Row): Statement;
  many(rows: readonly Row[]): Statement[];
};

/**
 * The rows of `many` travel as one JSON array that json_populate_recordset reads typed by the
 * table's own columns, so both forms store the same values from the same row; one JSON text is
 * cheaper to build and to parse than an array parameter per column.
 */
const rowsOf = (table: string) => `json_populate_recordset(NULL::${table}, $1::json)`;

/** Objects go to jsonb columns as JSON text (json_populate_recordset reads them as they stand). */
const bound = (value: unknown): unknown => (value !== null && typeof value === 'object' ? JSON.stringify(value) : (value ?? null));

/** An insert of `columns`, ending with `tail` (an ON CONFLICT clause) in both forms. */
export function insertInto(table: string, columns: readonly string[], tail = ''): TableWrite {
  const list = columns.join(', ');
  const one = `INSERT INTO ${table} (${list}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) ${tail}`;
  const many = `INSERT INTO ${table} (${list}) SELECT ${list} FROM ${rowsOf(table)} ${tail}`;
  return {
    one: (row) => [one, columns.map((c) => bound(row[c]))],
    many: (rows) => (rows.length === 0 ? [] : [[many, [JSON.stringify(rows)]]]),
  };
}

/**
 * An update of `columns` of the row whose `key` (a uuid) the row names. Every column it sets comes
 * from the row, so of several updates of one key the last leaves what all of them in turn would:
 * `many` keeps that one (UPDATE ... FROM would take an arbitrary one of a key's rows). Its keys also
 * go apart: the planner takes the function's rows for 100 whatever they are, and a plan made while
 * the table was small would scan all of it for every run once it has grown; the keys (a few listed,
 * more as an array: `among`) keep it on the table's index.
 */
export function updateOf(table: string, key: string, columns: readonly string[]): TableWrite {
  const one = `UPDATE ${table} SET ${columns.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE ${key} = $1`;
  const set = columns.map((c) => `${c} = r.${c}`).join(', ');
  const many = (keys: string) => `UPDATE ${table} SET ${set} FROM ${rowsOf(table)} r WHERE ${table}.${key} = r.${key} AND ${keys}`;
  return {
    one: (row) => [one, [row[key], ...columns.map((c) => bound(row[c]))]],
    many: (rows) => {
      if (rows.length === 0) return [];
      const last = lastPerKey(rows, (r) => String(r[key]));
      const ids = last.map((r) => r[key]);
      const keys = among(`${table}.${key}`, 2, ids, 'uuid');
      return [[many(keys.text), [JSON.stringify(last), ...keys.values]]];
    },
  };
}

/** Rows of values as one array per column, the parameters of an insert from unnest (none for no row). */
export const columnsOf = (rows: readonly (readonly unknown[])[]): unknown[][] =>
  rows.length === 0 ? [] : rows[0]!.map((_, column) => rows.map((row) => row[column]));

/** Of rows with the same key, the last; in the order of their keys' first rows. */
export function lastPerKey<R>(rows: readonly R[], keyOf: (row: R) => string): R[] {
  const last = new Map<string, R>();
  for (const row of rows) last.set(keyOf(row), row);
  return [...last.values()];
}
