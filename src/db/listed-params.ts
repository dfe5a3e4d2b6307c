/**
 * Values up to this many a statement names with a parameter each. Given an array, PostgreSQL's
 * generic plan counts ten elements and loses to the custom plans of a few, so the statement was
 * planned at most of its runs (a keep's keys at 78%, about 100 µs a plan; a group commit's few
 * proposals closed at every run). Listed, each count is a statement of its own, planned a few times
 * per connection (docs/decisions.md, "Read models").
 */
export const LISTED_PARAMS = 4;

/** `column` among `values` (of SQL `type`): listed as parameters from `$from` on, or more as one array. */
export function among(column: string, from: number, values: readonly unknown[], type: string): { text: string; values: unknown[] } {
  if (values.length > LISTED_PARAMS) return { text: `${column} = ANY($${from}::${type}[])`, values: [values] };
  return { text: `${column} IN (${values.map((_, i) => `$${from + i}::${type}`).join(', ')})`, values: [...values] };
}
