import type { JsonObject } from '../../events/envelope.js';
import type { SqlDb } from '../../db/sql.js';
import type { JobHandler, JobWorker, ResolvedQueueOptions } from './queue.js';
import * as q from './queries.js';

type ClaimedRow = { job_id: string; payload: JsonObject; attempt: number; lock_token: string };

export type SqlWorkerSetup = {
  readonly db: SqlDb;
  readonly name: string;
  readonly handler: JobHandler;
  readonly concurrency: number;
  readonly pollMs: number;
  readonly options: ResolvedQueueOptions;
  /** Registers a wake-up for local enqueues on this queue; answers the unregister function. */
  readonly onEnqueued: (wake: () => void) => () => void;
};

/**
 * One worker on one queue of the SQL job queue: claims due jobs up to its concurrency, renews
 * their leases while they run, and records the outcome. Sleeps between polls unless an enqueue
 * in this process, a finished job or a due retry wakes it.
 */
export class SqlWorker implements JobWorker {
  private readonly running = new Set<Promise<void>>();
  private readonly renewals = new Set<NodeJS.Timeout>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private stopped = false;
  private abandoned = false;
  private woken = false;
  private wakeSleeper: (() => void) | null = null;
  private readonly unregister: () => void;
  private readonly loop: Promise<void>;

  constructor(private readonly s: SqlWorkerSetup) {
    this.unregister = s.onEnqueued(() => this.wake());
    this.loop = this.run();
  }

  async close(): Promise<void> {
    await this.stop();
    await Promise.all(this.running);
  }

  async abandon(): Promise<void> {
    this.abandoned = true;
    await this.stop();
  }

  private async stop(): Promise<void> {
    this.stopped = true;
    this.unregister();
    this.wake();
    for (const timer of this.retryTimers) clearTimeout(timer);
    // Running jobs keep their lease through a graceful close; after abandon() it lapses, as on a crash.
    if (this.abandoned) for (const timer of this.renewals) clearInterval(timer);
    await this.loop;
  }

  private async run(): Promise<void> {
    const { db, name, options } = this.s;
    while (!this.stopped) {
      this.woken = false;
      const free = this.s.concurrency - this.running.size;
      if (free > 0) {
        try {
          const claimed = await db.query<ClaimedRow>(q.claim, [name, free, options.leaseMs]);
          if (this.abandoned) return;
          for (const row of claimed.rows) this.track(this.runJob(row));
          if (claimed.rows.length === free) continue;
        } catch (error) {
          if (!this.stopped) options.onError(error);
        }
      }
      await this.sleep(this.s.pollMs);
    }
  }

  private track(job: Promise<void>): void {
    this.running.add(job);
    void job.finally(() => {
      this.running.delete(job);
      this.wake();
    });
  }

  private async runJob(row: ClaimedRow): Promise<void> {
    const { db, name, options } = this.s;
    const key = [name, row.job_id, row.lock_token];
    const renew = setInterval(
      () => {
        db.query(q.renewLease, [...key, options.leaseMs]).catch((error: unknown) => options.onError(error));
      },
      Math.max(1, Math.floor(options.leaseMs / 2)),
    );
    this.renewals.add(renew);
    let failure: unknown = null;
    try {
      await this.s.handler({ id: row.job_id, name, payload: row.payload, attempt: row.attempt });
    } catch (error) {
      failure = error ?? new Error('job failed');
    } finally {
      clearInterval(renew);
      this.renewals.delete(renew);
    }
    // A crashed worker records nothing; abandon() behaves the same, so the lease decides.
    if (this.abandoned) return;
    try {
      if (failure === null) {
        await db.query(q.complete, key);
      } else {
        const r = await db.query<{ state: string; retry_in_ms: number }>(q.fail, [...key, errorMessage(failure)]);
        const retry = r.rows[0];
        if (retry?.state === 'waiting') this.wakeAfter(retry.retry_in_ms);
      }
    } catch (error) {
      options.onError(error);
    }
  }

  /** Polling would find the retry too, but only up to pollMs late. */
  private wakeAfter(delayMs: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.wake();
    }, delayMs);
    this.retryTimers.add(timer);
  }

  private wake(): void {
    this.woken = true;
    this.wakeSleeper?.();
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeSleeper = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeSleeper = done;
    });
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}
