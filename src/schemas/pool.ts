import { Worker } from 'node:worker_threads';
import type { JsonValue } from '../events/envelope.js';
import { budgetExceeded, busy, DEPTH_BUDGET_MESSAGE, TIME_BUDGET_MESSAGE } from './results.js';
import type { ValidationResult } from './results.js';
import type { WorkerInit, WorkerJob, WorkerReply } from './worker.js';

export type PoolOptions = {
  readonly size: number;
  /** Time one job may take from the moment it is asked for, waiting included. */
  readonly budgetMs: number;
  /** Jobs that may wait for a worker; one more is refused at once. */
  readonly maxQueued: number;
  /** Jobs one caller may have waiting or running; one more is refused at once. */
  readonly maxPerCaller: number;
  readonly maxMemoryMb: number;
  readonly init: WorkerInit;
};

type Job = WorkerJob & {
  readonly caller: string;
  /** Date.now() by which the job must be answered, counted from when it was asked for. */
  readonly deadline: number;
  expiry: NodeJS.Timeout | null;
  readonly resolve: (r: ValidationResult) => void;
  readonly reject: (e: Error) => void;
};
type Slot = {
  readonly worker: Worker;
  ready: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  retired: boolean;
  /** The caller whose job cost the previous worker its life: it holds this one until it is up. */
  heldBy: string | null;
};

/**
 * Worker threads that compile and run untrusted schemas under a deadline. A catastrophic
 * `pattern` cannot be interrupted from inside JavaScript, so a job that overruns has its worker
 * terminated and replaced; the other workers keep answering meanwhile.
 *
 * One caller cannot starve the others: it may have only `maxPerCaller` jobs in the pool and hold
 * all workers but one, the queue is bounded, and waiting counts against a job's budget, so a job
 * whose budget ran out in the queue is answered without running.
 */
export class ValidationPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  /** Per caller: jobs waiting or running. */
  private readonly inPool = new Map<string, number>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: PoolOptions) {
    for (let i = 0; i < options.size; i++) this.spawn();
  }

  /** Validates for `caller` (an identity id), the unit of fairness. */
  run(schema: JsonValue, data: JsonValue, caller: string): Promise<ValidationResult> {
    if (this.closed) return Promise.reject(new Error('the validation pool is closed'));
    if ((this.inPool.get(caller) ?? 0) >= this.options.maxPerCaller) {
      return Promise.resolve(busy(`at most ${this.options.maxPerCaller} validations per caller may run or wait at a time`));
    }
    if (this.queue.length >= this.options.maxQueued) return Promise.resolve(busy('the validation queue is full'));
    count(this.inPool, caller, 1);
    return new Promise((resolve, reject) => {
      const settled =
        <T>(answer: (v: T) => void) =>
        (v: T) => {
          count(this.inPool, caller, -1);
          answer(v);
        };
      const job: Job = {
        id: this.nextId++,
        schema,
        data,
        caller,
        deadline: Date.now() + this.options.budgetMs,
        expiry: null,
        resolve: settled(resolve),
        reject: settled(reject),
      };
      job.expiry = setTimeout(() => this.expire(job), this.options.budgetMs);
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Resolves once every worker has started: waiting for a starting worker counts against a job's budget. */
  async ready(): Promise<void> {
    // A replaced worker leaves the set before its successor joins it.
    const starting = () => this.slots.size < this.options.size || [...this.slots].some((s) => !s.ready);
    while (!this.closed && starting()) await new Promise((r) => setTimeout(r, 20));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.dequeueAll()) job.reject(new Error('the validation pool is closed'));
    await Promise.all([...this.slots].map((slot) => this.retire(slot, new Error('the validation pool is closed'))));
  }

  private spawn(heldBy: string | null = null): void {
    const worker = startWorker(this.options.init, this.options.maxMemoryMb);
    worker.unref();
    const slot: Slot = { worker, ready: false, job: null, timer: null, retired: false, heldBy };
    this.slots.add(slot);
    worker.on('message', (reply: WorkerReply) => {
      if (reply.kind === 'ready') {
        slot.ready = true;
        slot.heldBy = null;
      } else if (slot.job?.id === reply.id) this.finish(slot)?.resolve(reply.result);
      this.dispatch();
    });
    worker.on('error', (e: Error & { code?: string }) => {
      const job = this.finish(slot);
      if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') job?.resolve(budgetExceeded('validation exceeded its memory budget'));
      else job?.reject(e);
      void this.replace(slot, e, job);
    });
    worker.on('exit', () => {
      const job = this.finish(slot);
      job?.reject(new Error('a validation worker stopped unexpectedly'));
      void this.replace(slot, new Error('a validation worker stopped unexpectedly'), job);
    });
  }

  /**
   * A caller holds at most all workers but one, so someone else's job always finds one; a worker
   * starting in place of one the caller's job overran counts as held, or the caller would take
   * the last ready worker while its victim restarts.
   */
  private mayTakeWorker(caller: string): boolean {
    let held = 0;
    for (const slot of this.slots) if (slot.job?.caller === caller || slot.heldBy === caller) held++;
    return held < Math.max(1, this.options.size - 1);
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.job || slot.retired) continue;
      const at = this.queue.findIndex((j) => this.mayTakeWorker(j.caller));
      if (at < 0) return;
      const [job] = this.queue.splice(at, 1) as [Job];
      if (job.expiry) clearTimeout(job.expiry);
      const left = job.deadline - Date.now();
      if (left <= 0) {
        job.resolve(budgetExceeded(TIME_BUDGET_MESSAGE));
        continue;
      }
      slot.job = job;
      slot.worker.ref();
      slot.timer = setTimeout(() => {
        const overran = this.finish(slot);
        overran?.resolve(budgetExceeded(TIME_BUDGET_MESSAGE));
        void this.replace(slot, null, overran);
      }, left);
      try {
        slot.worker.postMessage({ id: job.id, schema: job.schema, data: job.data } satisfies WorkerJob);
      } catch (e) {
        // Structured clone recurses: a value nested deeply enough cannot even be handed over.
        const answer = e instanceof RangeError ? budgetExceeded(DEPTH_BUDGET_MESSAGE) : null;
        const detached = this.finish(slot);
        if (answer) detached?.resolve(answer);
        else detached?.reject(e instanceof Error ? e : new Error(String(e)));
      }
    }
  }

  /** The budget ran out while the job waited: answered without running. */
  private expire(job: Job): void {
    const at = this.queue.indexOf(job);
    if (at < 0) return;
    this.queue.splice(at, 1);
    job.resolve(budgetExceeded(TIME_BUDGET_MESSAGE));
  }

  private dequeueAll(): Job[] {
    const jobs = this.queue.splice(0);
    for (const job of jobs) if (job.expiry) clearTimeout(job.expiry);
    return jobs;
  }

  /** Detaches the slot's job (if any) so it is answered exactly once. */
  private finish(slot: Slot): Job | null {
    const job = slot.job;
    slot.job = null;
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    if (!slot.retired) slot.worker.unref();
    return job;
  }

  /** `culprit`: the job the slot's worker died on, whose caller holds the replacement until it is up. */
  private async replace(slot: Slot, cause: Error | null, culprit: Job | null): Promise<void> {
    if (slot.retired) return;
    const neverStarted = !slot.ready;
    const retired = this.retire(slot, cause ?? new Error('a validation worker was replaced'));
    if (this.closed) return retired;
    if (neverStarted && cause) {
      // A worker that cannot start would fail again at once: answer the waiting jobs, retry later.
      for (const job of this.dequeueAll()) job.reject(new Error(`validation worker failed to start: ${cause.message}`));
      setTimeout(() => this.closed || (this.spawn(), this.dispatch()), 1000).unref();
    } else {
      // At once, not once the old worker is gone: the culprit's hold must not lapse meanwhile.
      this.spawn(culprit?.caller ?? null);
      this.dispatch();
    }
    return retired;
  }

  private async retire(slot: Slot, reason: Error): Promise<void> {
    if (slot.retired) return;
    slot.retired = true;
    this.slots.delete(slot);
    this.finish(slot)?.reject(reason);
    await slot.worker.terminate();
  }
}

function count(counts: Map<string, number>, caller: string, by: 1 | -1): void {
  const n = (counts.get(caller) ?? 0) + by;
  if (n > 0) counts.set(caller, n);
  else counts.delete(caller);
}

/** Under tsx (`npm start`, mocha) the sources are .ts and the worker needs worker-entry.mjs. */
function startWorker(init: WorkerInit, maxMemoryMb: number): Worker {
  const entry = import.meta.url.endsWith('.ts') ? './worker-entry.mjs' : './worker.js';
  return new Worker(new URL(entry, import.meta.url), {
    workerData: init,
    resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb, stackSizeMb: 8 },
  });
}
