import { refuse, type Refusal } from '../commands/refusal.js';
import type { Page } from '../requests/index.js';

/** §10.6, ?limit=N&{cursor}=C: N a whole number from 1 to `max`, `fallback` when absent; C one string, as a previous page gave it. */
export function pageQuery(
  query: Readonly<Record<string, unknown>>,
  cursor: string,
  { fallback, max }: { readonly fallback: number; readonly max: number },
): Page | Refusal {
  const limit = query.limit;
  if (limit !== undefined && (typeof limit !== 'string' || !/^[1-9][0-9]{0,3}$/.test(limit) || Number(limit) > max))
    return refuse('invalid_request', `limit must be a whole number from 1 to ${max}`);
  const from = query[cursor];
  if (from !== undefined && (typeof from !== 'string' || from === ''))
    return refuse('invalid_request', `${cursor} must be given once, as a previous page gave it`);
  return { limit: limit === undefined ? fallback : Number(limit), from: from ?? null };
}
