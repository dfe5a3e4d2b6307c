import { Worker } from 'node:worker_threads';
import type { JsonValue } from '../events/envelope.js';
import { budgetExceeded, DEPTH_BUDGET_MESSAGE, TIME_BUDGET_MESSAGE } from './results.js';
import type { ValidationResult } from './results.js';
import type { WorkerInit, WorkerJob, WorkerReply } from './worker.js';

export type PoolOptions = {
  readonly size: number;
  /** Time one job may run on a worker before the worker is killed. */
  readonly budgetMs: number;
  readonly maxMemoryMb: number;
  readonly init: WorkerInit;
};

type Job = WorkerJob & { readonly resolve: (r: ValidationResult) => void; readonly reject: (e: Error) => void };
type Slot = { readonly worker: Worker; ready: boolean; job: Job | null; timer: NodeJS.Timeout | null; retired: boolean };

/**
 * Worker threads that compile and run untrusted schemas under a deadline. A catastrophic
 * `pattern` cannot be interrupted from inside JavaScript, so a job that overruns has its worker
 * terminated and replaced; the other workers keep answering meanwhile.
 */
export class ValidationPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: PoolOptions) {
    for (let i = 0; i < options.size; i++) this.spawn();
  }

  run(schema: JsonValue, data: JsonValue): Promise<ValidationResult> {
    if (this.closed) return Promise.reject(new Error('the validation pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, schema, data, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the validation pool is closed'));
    await Promise.all([...this.slots].map((slot) => this.retire(slot, new Error('the validation pool is closed'))));
  }

  private spawn(): void {
    const worker = startWorker(this.options.init, this.options.maxMemoryMb);
    worker.unref();
    const slot: Slot = { worker, ready: false, job: null, timer: null, retired: false };
    this.slots.add(slot);
    worker.on('message', (reply: WorkerReply) => {
      if (reply.kind === 'ready') slot.ready = true;
      else if (slot.job?.id === reply.id) this.finish(slot)?.resolve(reply.result);
      this.dispatch();
    });
    worker.on('error', (e: Error & { code?: string }) => {
      const job = this.finish(slot);
      if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') job?.resolve(budgetExceeded('validation exceeded its memory budget'));
      else job?.reject(e);
      void this.replace(slot, e);
    });
    worker.on('exit', () => {
      this.finish(slot)?.reject(new Error('a validation worker stopped unexpectedly'));
      void this.replace(slot, new Error('a validation worker stopped unexpectedly'));
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.job || slot.retired) continue;
      const job = this.queue.shift();
      if (!job) return;
      slot.job = job;
      slot.worker.ref();
      slot.timer = setTimeout(() => {
        this.finish(slot)?.resolve(budgetExceeded(TIME_BUDGET_MESSAGE));
        void this.replace(slot, null);
      }, this.options.budgetMs);
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

  /** Detaches the slot's job (if any) so it is answered exactly once. */
  private finish(slot: Slot): Job | null {
    const job = slot.job;
    slot.job = null;
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    if (!slot.retired) slot.worker.unref();
    return job;
  }

  private async replace(slot: Slot, cause: Error | null): Promise<void> {
    if (slot.retired) return;
    const neverStarted = !slot.ready;
    await this.retire(slot, cause ?? new Error('a validation worker was replaced'));
    if (this.closed) return;
    if (neverStarted && cause) {
      // A worker that cannot start would fail again at once: answer the waiting jobs, retry later.
      for (const job of this.queue.splice(0)) job.reject(new Error(`validation worker failed to start: ${cause.message}`));
      setTimeout(() => this.closed || (this.spawn(), this.dispatch()), 1000).unref();
      return;
    }
    this.spawn();
    this.dispatch();
  }

  private async retire(slot: Slot, reason: Error): Promise<void> {
    if (slot.retired) return;
    slot.retired = true;
    this.slots.delete(slot);
    this.finish(slot)?.reject(reason);
    await slot.worker.terminate();
  }
}

/** Under tsx (`npm start`, mocha) the sources are .ts and the worker needs worker-entry.mjs. */
function startWorker(init: WorkerInit, maxMemoryMb: number): Worker {
  const entry = import.meta.url.endsWith('.ts') ? './worker-entry.mjs' : './worker.js';
  return new Worker(new URL(entry, import.meta.url), { workerData: init, resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb, stackSizeMb: 8 } });
}
