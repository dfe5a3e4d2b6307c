import type fc from 'fast-check';
import type { SqlDb } from '../../../src/db/sql.js';
import type { RawReply } from './raw-http.js';

/** FUZZ_RUNS=500 runs each property longer; the default keeps these suites to well under a minute. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 12);

/** A failure as its seed and path (to replay it: fc.assert(..., { seed, path })) and our own message, not a dump of megabyte inputs. */
export function briefly<T>(details: fc.RunDetails<T>): void {
  if (!details.failed) return;
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`failed after ${details.numRuns} runs (seed ${details.seed}, path "${details.counterexamplePath}"): ${cause}`);
}

/**
 * What no answer may show a client, whatever it sent: each a sign that an internal error got
 * through. A pattern the request itself matched does not count (a detail may quote a field's name).
 */
const LEAKS: ReadonlyArray<readonly [string, RegExp]> = [
  ['a stack frame', /\n\s+at |\bat [\w.<>]+ \(|\.[cm]?[jt]s:\d+/],
  [
    'SQL',
    /\b(SELECT|INSERT|UPDATE|DELETE)\b[^"]*\b(FROM|INTO|SET)\b|\brelation "|syntax error at|violates \w+ constraint|SQLSTATE|\bpg_\w+/i,
  ],
  ['a filesystem path', /\/work\/|\/src\/|node_modules|\/tmp\/|file:\/\//],
  ['an internal error', /TypeError|RangeError|ReferenceError|Cannot read propert|is not a function|Maximum call stack/],
];

export type GraphqlError = { readonly message?: unknown; readonly extensions?: { readonly code?: unknown } };

/** Why the reply breaks the properties of a hostile-input answer, or null when it keeps them. */
export function verdict(reply: RawReply, requestText: string, surface: 'rest' | 'graphql'): string | null {
  if (!(reply.status >= 200 && reply.status < 500)) return `answered ${reply.status}`;
  for (const [what, pattern] of LEAKS) if (pattern.test(reply.text) && !pattern.test(requestText)) return `the answer shows ${what}`;
  const type = reply.headers['content-type'] ?? '';
  const body = parsed(reply.text);
  if (reply.status >= 400 && type.startsWith('application/problem+json'))
    return typeof field(body, 'code') === 'string' ? null : 'a problem without a code';
  if (surface === 'graphql' && /^application\/(graphql-response\+)?json/.test(type)) {
    const errors = field(body, 'errors');
    if (errors === undefined) return reply.status < 400 ? null : `answered ${reply.status} without errors`;
    if (!Array.isArray(errors) || errors.length === 0) return 'errors is not a non-empty list';
    const uncoded = (errors as GraphqlError[]).find(
      (e) => typeof e.extensions?.code !== 'string' || e.extensions.code === 'INTERNAL_SERVER_ERROR',
    );
    return uncoded ? `a GraphQL error without a client code: ${JSON.stringify(uncoded)}` : null;
  }
  return reply.status >= 400 ? `answered ${reply.status} as ${JSON.stringify(type)}, not problem+json` : null;
}

/** Whether a GraphQL answer (or a problem) refused the request: it must then have written nothing. */
export function refused(reply: RawReply): boolean {
  if (reply.status >= 400) return true;
  const errors = field(parsed(reply.text), 'errors');
  return Array.isArray(errors) && errors.length > 0;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/**
 * The rows of the log and of every read model, table by table: a refused request changes none.
 * Rate-limit counters (schema limits) and the login codes' bookkeeping count refusals on purpose;
 * checkpoints, the queue and the events feed's tables (they follow the log, R-FEED-06: a refusal
 * appends nothing for them to follow, as es.events shows) move on their own.
 */
export async function rowCounter(db: SqlDb): Promise<() => Promise<Record<string, number>>> {
  const tables = (
    await db.query<{ name: string }>(
      `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema', 'limits', 'queue', 'reactors')
          AND table_name NOT IN ('projection_checkpoints', 'otp_codes') AND table_name NOT LIKE 'events\\_feed%' ORDER BY 1`,
    )
  ).rows.map((r) => r.name);
  const sql = `SELECT ${tables.map((t, i) => `(SELECT count(*)::int FROM ${t}) AS t${i}`).join(', ')}`;
  return async () => {
    const row = (await db.query<Record<string, number>>(sql)).rows[0]!;
    return Object.fromEntries(tables.map((t, i) => [t, Number(row[`t${i}`])]));
  };
}
