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

const MAXTH_NEWEST = `SELECT (SELECT h.expires_at FROM limits.hits h WHERE h.bucket = t.b AND h.expires_at > $3
                                ORDER BY h.expires_at DESC OFFSET t.m - 1 LIMIT 1) AS expires_at
                        FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS t(b, m, i) ORDER BY t.i`;

const q = {
  // An upsert locks a row whether it inserts or finds it; the rows in the order given, which is
  // the same for every caller. A statement of its own: a statement's snapshot is taken before it
  // waits, so only the next one sees the hits of the call it waited for.
  lock: `INSERT INTO limits.buckets (bucket) SELECT b FROM unnest($1::text[]) WITH ORDINALITY AS t(b, i) ORDER BY i
         ON CONFLICT (bucket) DO UPDATE SET bucket = EXCLUDED.bucket`,
  // Per bucket, the max-th newest hit still in the window: it alone decides, and fetching the newer
  // ones too would ship a generous limit's whole window (thousands of hits an hour from one address)
  // to the service under the bucket's lock. Under the lock the expired hits go in the same
  // statement; the query does not see that deletion, hence its own bound on expires_at.
  maxthNewest: `WITH pruned AS (DELETE FROM limits.hits WHERE bucket = ANY($1::text[]) AND expires_at <= $3) ${MAXTH_NEWEST}`,
  maxthNewestUnlocked: MAXTH_NEWEST,
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
    if (limits.length === 0) return null;
    const sorted = this.sorted(limits);
    await tx.query(q.lock, [[...new Set(sorted.map((s) => s.bucket))]]);
    return this.blockedBy(tx, q.maxthNewest, sorted, at);
  }

  /**
   * What keeps the call out, as `check` answers, without locking the buckets or waiting for those
   * who hold them: for a call that will not be counted, so that such calls from one address do not
   * queue behind each other. Read before a concurrent counted call commits, it answers as if the
   * uncounted call came first.
   */
  async peek<L extends Limit>(tx: SqlExecutor, limits: readonly L[], at: Date): Promise<Blocked<L> | null> {
    return limits.length === 0 ? null : this.blockedBy(tx, q.maxthNewestUnlocked, this.sorted(limits), at);
  }

  private async blockedBy<L extends Limit>(
    tx: SqlExecutor,
    maxthNewest: string,
    sorted: ReadonlyArray<{ limit: L; bucket: string }>,
    at: Date,
  ): Promise<Blocked<L> | null> {
    const maxths = (
      await tx.query<{ expires_at: Date | string | null }>(maxthNewest, [sorted.map((s) => s.bucket), sorted.map((s) => s.limit.max), at])
    ).rows;
    let blocked: Blocked<L> | null = null;
    for (const [i, { limit }] of sorted.entries()) {
      const maxth = maxths[i]?.expires_at;
      if (maxth === null || maxth === undefined) continue;
      // Room comes back when the max-th newest call leaves the window.
      const retryAfter = Math.max(1, Math.ceil((new Date(maxth).getTime() - at.getTime()) / 1000));
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
