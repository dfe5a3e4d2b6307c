import { Queue, Worker, type Job as BullJob, type JobsOptions } from 'bullmq';
import type { JsonObject } from '../../events/envelope.js';
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

export type BullmqQueueOptions = QueueOptions & {
  /** Namespace of every Redis key of this service's queues, so it can share a Redis with others. */
  readonly prefix?: string;
};

/**
 * The job queue on Redis via BullMQ (used when REDIS_URL is set). Dedupe is BullMQ's own: adding
 * a job id that exists returns the existing job, so completed jobs are kept (removeOnComplete by
 * age, keepCompletedMs) for the id to be recognised; failed jobs are kept for inspection.
 */
export class BullmqJobQueue implements JobQueue {
  private readonly queues = new Map<string, Queue<JsonObject>>();
  private readonly workers = new Set<JobWorker>();
  private readonly options: ResolvedQueueOptions;
  private readonly prefix: string;
  private readonly jobOptions: JobsOptions;

  constructor(
    private readonly url: string,
    options: BullmqQueueOptions = {},
  ) {
    this.options = resolveQueueOptions(options);
    this.prefix = options.prefix ?? 'dss';
    this.jobOptions = {
      attempts: this.options.attempts,
      backoff: { type: 'exponential', delay: this.options.backoffMs },
      removeOnComplete: { age: Math.ceil(this.options.keepCompletedMs / 1000) },
      removeOnFail: false,
    };
  }

  async enqueue(name: string, jobId: string, payload: JsonObject, options?: EnqueueOptions): Promise<void> {
    assertQueueName(name);
    assertJobId(jobId);
    const delay = resolveDelay(options);
    await this.queue(name).add(name, payload, { ...this.jobOptions, jobId, ...(delay > 0 ? { delay } : {}) });
  }

  process(name: string, handler: JobHandler, options?: ProcessOptions): JobWorker {
    assertQueueName(name);
    const worker = new Worker<JsonObject>(
      name,
      // attemptsMade counts the runs that failed before this one.
      (job: BullJob<JsonObject>) => handler({ id: job.id ?? '', name, payload: job.data, attempt: job.attemptsMade + 1 }),
      {
        connection: { url: this.url },
        prefix: this.prefix,
        concurrency: resolveConcurrency(options),
        lockDuration: this.options.leaseMs,
        // Checking as often as a lease lasts hands a dead worker's job on within about two leases.
        stalledInterval: this.options.leaseMs,
      },
    );
    // Without a listener an 'error' event would crash the process.
    worker.on('error', (error) => this.options.onError(error));
    const handle: JobWorker = {
      close: async () => {
        this.workers.delete(handle);
        await worker.close();
      },
      abandon: async () => {
        this.workers.delete(handle);
        await worker.close(true);
      },
    };
    this.workers.add(handle);
    return handle;
  }

  async depth(name: string): Promise<QueueDepth> {
    assertQueueName(name);
    const c = await this.queue(name).getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
    return { waiting: (c.waiting ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0 };
  }

  async status(name: string, jobId: string): Promise<JobStatus | null> {
    assertQueueName(name);
    assertJobId(jobId);
    const job = await this.queue(name).getJob(jobId);
    if (!job) return null;
    const state = toJobState(await job.getState());
    return state ? { state, lastError: job.failedReason || null } : null;
  }

  async close(): Promise<void> {
    await Promise.all([...this.workers].map((w) => w.close()));
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    this.queues.clear();
  }

  private queue(name: string): Queue<JsonObject> {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue<JsonObject>(name, { connection: { url: this.url }, prefix: this.prefix });
      queue.on('error', (error) => this.options.onError(error));
      this.queues.set(name, queue);
    }
    return queue;
  }
}

function toJobState(state: string): JobState | null {
  switch (state) {
    case 'waiting':
    case 'prioritized':
    case 'waiting-children':
      return 'waiting';
    case 'delayed':
    case 'active':
    case 'completed':
    case 'failed':
      return state;
    default:
      return null;
  }
}
