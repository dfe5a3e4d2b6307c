import type { JsonObject } from '../../events/envelope.js';

/**
 * The job queue port: reactors enqueue work under an id derived from the event that caused it,
 * and workers run it at least once, retrying with exponential backoff. Two adapters: BullMQ
 * (REDIS_URL) and a table in the service's own database (the embedded default).
 */
export interface JobQueue {
  /**
   * Adds a job unless one with this id exists in this queue, whatever its state (waiting, done or failed);
   * with `delayMs`, it waits as delayed that long before it is run.
   */
  enqueue(name: string, jobId: string, payload: JsonObject, options?: EnqueueOptions): Promise<void>;
  /** Starts a worker on the queue `name`; a job whose handler throws is retried until its attempts run out. */
  process(name: string, handler: JobHandler, options?: ProcessOptions): JobWorker;
  /** How many jobs of a queue are in each state that needs watching (for the queue-depth metric). */
  depth(name: string): Promise<QueueDepth>;
  /** Where one job is, or null when the queue has no such job (never enqueued, or forgotten after retention). */
  status(name: string, jobId: string): Promise<JobStatus | null>;
  /** Closes every worker started here (letting running jobs finish) and the queue's own connections. */
  close(): Promise<void>;
}

export type Job = {
  readonly id: string;
  readonly name: string;
  readonly payload: JsonObject;
  /** 1 on the first run; a handler may use it to log or to give up on a retry. */
  readonly attempt: number;
};

export type JobHandler = (job: Job) => Promise<void>;

export type ProcessOptions = { readonly concurrency?: number };

export type EnqueueOptions = { readonly delayMs?: number };

/** The delay of an enqueue, checked: a whole number of milliseconds, none when absent. */
export function resolveDelay(options: EnqueueOptions = {}): number {
  const delay = options.delayMs ?? 0;
  if (!Number.isInteger(delay) || delay < 0) throw new RangeError('delayMs must be a whole number of milliseconds, not negative');
  return delay;
}

export interface JobWorker {
  /** Stops taking jobs and waits for the running ones to finish. */
  close(): Promise<void>;
  /**
   * Stops at once, as a crash would: running jobs are left to their lease, which lapses,
   * and they then run again on another worker. For shutdown timeouts and tests.
   */
  abandon(): Promise<void>;
}

export type QueueDepth = { waiting: number; active: number; delayed: number; failed: number };

export type JobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed';
export type JobStatus = { readonly state: JobState; readonly lastError: string | null };

export type QueueOptions = {
  /** Runs of a job before it ends failed (the first run counts). */
  readonly attempts?: number;
  /** Delay before the first retry; each further retry waits twice as long as the one before. */
  readonly backoffMs?: number;
  /** How long a worker holds a job without renewing; a job whose worker died runs again after it. */
  readonly leaseMs?: number;
  /** How long a completed job's id is remembered, so enqueueing it again is recognised and skipped. */
  readonly keepCompletedMs?: number;
  /** Errors of the background machinery (a lost connection), never a job's own failure. */
  readonly onError?: (error: unknown) => void;
};

export type ResolvedQueueOptions = Required<QueueOptions>;

const DAY_MS = 24 * 60 * 60 * 1000;

export function resolveQueueOptions(options: QueueOptions = {}): ResolvedQueueOptions {
  const resolved = {
    attempts: options.attempts ?? 5,
    backoffMs: options.backoffMs ?? 1000,
    leaseMs: options.leaseMs ?? 30_000,
    // A week outlives any redelivery of the event that derived the id (catch-up after an outage).
    keepCompletedMs: options.keepCompletedMs ?? 7 * DAY_MS,
    onError: options.onError ?? ((error: unknown) => console.error('job queue:', error)),
  };
  for (const key of ['attempts', 'leaseMs'] as const) {
    if (!Number.isInteger(resolved[key]) || resolved[key] < 1) throw new RangeError(`${key} must be a positive integer`);
  }
  if (!(resolved.backoffMs >= 0)) throw new RangeError('backoffMs must not be negative');
  return resolved;
}

export function resolveConcurrency(options: ProcessOptions = {}): number {
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer');
  return concurrency;
}

/**
 * BullMQ builds its Redis keys with ':' and reserves bare integers for ids it generates itself,
 * so both adapters refuse them: a name that works on one backend works on the other.
 */
export function assertQueueName(name: string): void {
  if (name === '' || name.includes(':'))
    throw new InvalidJobKeyError(`queue name ${JSON.stringify(name)} must be non-empty and contain no ':'`);
}

export function assertJobId(jobId: string): void {
  if (jobId === '' || jobId.includes(':'))
    throw new InvalidJobKeyError(`job id ${JSON.stringify(jobId)} must be non-empty and contain no ':'`);
  if (/^\d+$/.test(jobId)) throw new InvalidJobKeyError(`job id ${JSON.stringify(jobId)} must not be a bare number`);
}

export class InvalidJobKeyError extends Error {
  override readonly name = 'InvalidJobKeyError';
}
