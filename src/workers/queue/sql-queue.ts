import { readFile } from 'node:fs/promises';
import type { JsonObject } from '../../events/envelope.js';
import type { SqlDb } from '../../db/sql.js';
import {
  assertJobId,
  assertQueueName,
  resolveConcurrency,
  resolveDelay,
  resolveQueueOptions,
  type EnqueueOptions,
  type JobHandler,
  type JobQueue,
  type JobState,
  type JobStatus,
  type JobWorker,
  type ProcessOptions,
  type QueueDepth,
  type QueueOptions,
  type ResolvedQueueOptions,
} from './queue.js';
import * as q from './queries.js';
import { SqlWorker } from './sql-worker.js';

export type SqlQueueOptions = QueueOptions & {
  /** Longest a worker sleeps before looking for due jobs enqueued by another process or retried. */
  readonly pollMs?: number;
};

const FORGET_EVERY_MS = 10 * 60 * 1000;

/**
 * The job queue in the service's own database (schema.sql), for the embedded setup without
 * Redis: jobs are rows, so they survive a restart, and any instance on the database may run them.
 */
export class SqlJobQueue implements JobQueue {
  private readonly workers = new Set<JobWorker>();
  private readonly wakers = new Map<string, Set<() => void>>();
  private readonly forgetTimer: NodeJS.Timeout;

  private constructor(
    private readonly db: SqlDb,
    private readonly options: ResolvedQueueOptions,
    private readonly pollMs: number,
  ) {
    this.forgetTimer = setInterval(() => {
      db.query(q.forgetCompleted, [options.keepCompletedMs]).catch((error: unknown) => options.onError(error));
    }, FORGET_EVERY_MS);
    this.forgetTimer.unref();
  }

  /** Creates the schema if missing; the SqlDb stays the caller's to close. */
  static async open(db: SqlDb, options: SqlQueueOptions = {}): Promise<SqlJobQueue> {
    const pollMs = options.pollMs ?? 1000;
    if (!(pollMs > 0)) throw new RangeError('pollMs must be positive');
    const resolved = resolveQueueOptions(options);
    await db.exec(await readFile(new URL('./schema.sql', import.meta.url), 'utf8'));
    return new SqlJobQueue(db, resolved, pollMs);
  }

  async enqueue(name: string, jobId: string, payload: JsonObject, options?: EnqueueOptions): Promise<void> {
    assertQueueName(name);
    assertJobId(jobId);
    const delay = resolveDelay(options);
    const { attempts, backoffMs } = this.options;
    const r = await this.db.query(q.enqueue, [name, jobId, JSON.stringify(payload), attempts, Math.round(backoffMs), delay]);
    if (r.rowCount === 0) return;
    const wake = () => this.wakers.get(name)?.forEach((w) => w());
    if (delay === 0) return wake();
    // Polling would find it too, but only up to pollMs late.
    setTimeout(wake, delay).unref();
  }

  process(name: string, handler: JobHandler, options?: ProcessOptions): JobWorker {
    assertQueueName(name);
    const worker = new SqlWorker({
      db: this.db,
      name,
      handler,
      concurrency: resolveConcurrency(options),
      pollMs: this.pollMs,
      options: this.options,
      onEnqueued: (wake) => this.onEnqueued(name, wake),
    });
    this.workers.add(worker);
    return {
      close: async () => {
        this.workers.delete(worker);
        await worker.close();
      },
      abandon: async () => {
        this.workers.delete(worker);
        await worker.abandon();
      },
    };
  }

  private onEnqueued(name: string, wake: () => void): () => void {
    const set = this.wakers.get(name) ?? new Set<() => void>();
    this.wakers.set(name, set);
    set.add(wake);
    return () => {
      set.delete(wake);
    };
  }

  async depth(name: string): Promise<QueueDepth> {
    assertQueueName(name);
    const r = await this.db.query<QueueDepth>(q.depth, [name]);
    return r.rows[0] ?? { waiting: 0, active: 0, delayed: 0, failed: 0 };
  }

  async status(name: string, jobId: string): Promise<JobStatus | null> {
    assertQueueName(name);
    assertJobId(jobId);
    const r = await this.db.query<{ state: JobState; last_error: string | null }>(q.status, [name, jobId]);
    const row = r.rows[0];
    return row ? { state: row.state, lastError: row.last_error } : null;
  }

  async close(): Promise<void> {
    clearInterval(this.forgetTimer);
    await Promise.all([...this.workers].map((w) => w.close()));
    this.workers.clear();
  }
}
