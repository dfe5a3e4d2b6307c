import { createHmac, hkdfSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { SqlDb, SqlExecutor } from '../db/sql.js';

/** At most `max` calls counted against `bucket` in any `windowMs`. */
export type Limit = {
  /** What is counted, e.g. `otp-send:<subject>`; stored only as a keyed hash. */
  readonly bucket: string;
  readonly max: number;
  readonly windowMs: number;
};

/** The limit that keeps a call out longest, and how long: every limit must have room again. */
export type Blocked<L extends Limit> = { readonly limit: L; readonly retryAfter: number };

const q = {
  // An upsert locks the row whether it inserts or finds it, in one statement.
  lock: `INSERT INTO limits.buckets (bucket) VALUES ($1) ON CONFLICT (bucket) DO UPDATE SET bucket = EXCLUDED.bucket`,
  prune: `DELETE FROM limits.hits WHERE bucket = $1 AND expires_at <= $2`,
  // Only the max-th newest hit decides; fetching the newer ones too would ship a generous limit's
  // whole window (thousands of hits an hour from one address) to the service under the bucket's lock.
  maxthNewest: `SELECT expires_at FROM limits.hits WHERE bucket = $1 ORDER BY expires_at DESC OFFSET $2::bigint - 1 LIMIT 1`,
  record: `INSERT INTO limits.hits (bucket, hit_id, expires_at)
           SELECT b, $2::uuid, e FROM unnest($1::text[], $3::timestamptz[]) AS t(b, e)`,
  forget: `DELETE FROM limits.hits WHERE hit_id = $1`,
};

/**
 * Sliding-window limits kept in the database, so they hold across restarts, instances and
 * concurrent calls: a caller checks its limits inside its own transaction, which locks their
 * buckets until it ends, and records the call there when it counts.
 */
export class SlidingWindows {
  private constructor(private readonly key: Buffer) {}

  /** `rootKey` keys the bucket hashes; it must stay the same across restarts, or counts restart. */
  static async open(db: SqlDb, rootKey: Buffer): Promise<SlidingWindows> {
    await db.exec(await readFile(new URL('./sliding-windows.sql', import.meta.url), 'utf8'));
    return new SlidingWindows(Buffer.from(hkdfSync('sha256', rootKey, Buffer.alloc(0), 'limits-bucket-v1', 32)));
  }

  /**
   * Locks the limits' buckets until `tx` ends and answers what keeps the call out, or null when
   * every limit has room. Buckets are locked in one order for every caller, so two calls sharing
   * buckets never deadlock; a caller takes no other limit lock in the same transaction.
   */
  async check<L extends Limit>(tx: SqlExecutor, limits: readonly L[], at: Date): Promise<Blocked<L> | null> {
    let blocked: Blocked<L> | null = null;
    for (const { limit, bucket } of this.sorted(limits)) {
      await tx.query(q.lock, [bucket]);
      await tx.query(q.prune, [bucket, at]);
      const maxth = (await tx.query<{ expires_at: Date | string }>(q.maxthNewest, [bucket, limit.max])).rows[0];
      if (!maxth) continue;
      // Room comes back when the max-th newest call leaves the window.
      const retryAfter = Math.max(1, Math.ceil((new Date(maxth.expires_at).getTime() - at.getTime()) / 1000));
      if (!blocked || retryAfter > blocked.retryAfter) blocked = { limit, retryAfter };
    }
    return blocked;
  }

  /** Counts one call against limits this transaction has checked (and so holds locked). */
  async record(tx: SqlExecutor, limits: readonly Limit[], hitId: string, at: Date): Promise<void> {
    const buckets = limits.map((l) => this.bucketOf(l));
    const expiries = limits.map((l) => new Date(at.getTime() + l.windowMs).toISOString());
    await tx.query(q.record, [buckets, hitId, expiries]);
  }

  /** Checks, and counts the call when every limit has room. */
  async take<L extends Limit>(tx: SqlExecutor, limits: readonly L[], hitId: string, at: Date): Promise<Blocked<L> | null> {
    const blocked = await this.check(tx, limits, at);
    if (!blocked) await this.record(tx, limits, hitId, at);
    return blocked;
  }

  /** Takes back a counted call that did not happen after all (its mail never left, its command was refused). */
  async forget(tx: SqlExecutor, hitId: string): Promise<void> {
    await tx.query(q.forget, [hitId]);
  }

  private bucketOf(limit: Limit): string {
    return createHmac('sha256', this.key).update(limit.bucket).digest('hex');
  }

  private sorted<L extends Limit>(limits: readonly L[]): Array<{ limit: L; bucket: string }> {
    return limits
      .map((limit) => ({ limit, bucket: this.bucketOf(limit) }))
      .sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0));
  }
}
