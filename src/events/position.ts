/**
 * A place in the global log, ordered by (commit, prepare).
 * EventStoreDB gives both numbers directly. The PostgreSQL adapters use (transaction_id, position):
 * the committing transaction's xid8 first, because sequence numbers commit out of order.
 */
export type Position = { readonly commit: bigint; readonly prepare: bigint };

export const START: Position = Object.freeze({ commit: -1n, prepare: -1n });

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export const isAtOrAfter = (a: Position, b: Position): boolean => comparePositions(a, b) >= 0;

export function formatPosition(p: Position): string {
  return `${p.commit}/${p.prepare}`;
}

/** The position formatPosition wrote, or null for any other text. */
export function positionFrom(text: string): Position | null {
  const m = /^(\d{1,20})\/(\d{1,20})$/.exec(text);
  return m ? { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) } : null;
}
