import type { Lease, SqlDb } from '../db/sql.js';

/** Retry-After of an export refused because another of the person's runs: about what a large one takes. */
export const EXPORT_BUSY_RETRY_SECONDS = 10;

/** Gives the turn back; safe to call more than once. */
export type ExportTurn = () => Promise<void>;

/**
 * R-EXP-04: one export per person at a time, on every instance. The turn is a lease named after
 * the person (a session advisory lock on PostgreSQL, so it ends with the process holding it), and
 * also kept in this process's memory: its own lease connection would be granted the lock again.
 */
export class ExportTurns {
  private readonly running = new Set<string>();

  constructor(private readonly db: Pick<SqlDb, 'tryLease'>) {}

  /** The person's turn; null while another export of theirs runs. */
  async take(identityId: string): Promise<ExportTurn | null> {
    if (this.running.has(identityId)) return null;
    this.running.add(identityId);
    let lease: Lease | null = null;
    try {
      lease = await this.db.tryLease(`export:${identityId}`);
      return lease && this.turn(identityId, lease);
    } finally {
      if (!lease) this.running.delete(identityId);
    }
  }

  private turn(identityId: string, lease: Lease): ExportTurn {
    let given = false;
    return async () => {
      if (given) return;
      given = true;
      try {
        await lease.release();
      } finally {
        this.running.delete(identityId);
      }
    };
  }
}
