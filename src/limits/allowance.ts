import { refuse, type Refusal } from '../commands/refusal.js';
import type { SqlDb } from '../db/sql.js';
import type { Limit, SlidingWindows } from './sliding-windows.js';

/** The window of the per-day limits. */
export const DAY_MS = 24 * 60 * 60_000;

/** A limit and what its refusal says. */
export type WordedLimit = Limit & { readonly message: string };

export type AllowanceDeps = { readonly db: SqlDb; readonly windows: SlidingWindows; readonly now: () => Date };

/**
 * Slots of a call in sliding windows kept in the database, taken before the call writes anything:
 * every limit at once, in a transaction of their own, or none (rate_limited, with when to try again).
 */
export class Allowance {
  constructor(private readonly deps: AllowanceDeps) {}

  /** Takes a slot in every limit for the call `hitId`, or answers rate_limited having taken none. */
  reserve(limits: readonly WordedLimit[], hitId: string): Promise<Refusal | null> {
    const { db, windows, now } = this.deps;
    return db.transaction(async (tx) => {
      const blocked = await windows.take(tx, limits, hitId, now());
      return blocked ? refuse('rate_limited', blocked.limit.message, blocked.retryAfter) : null;
    });
  }

  /** Gives the slots of `hitId` back: the call was refused after all, so nothing was done. */
  release(hitId: string): Promise<void> {
    return this.deps.windows.forget(this.deps.db, hitId);
  }
}
