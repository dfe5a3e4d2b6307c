import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { JsonObject } from '../../src/events/envelope.js';
import { InvalidJobKeyError, type Job, type JobQueue, type QueueOptions } from '../../src/workers/queue/index.js';

export type QueueUnderTest = {
  /** A new queue instance on the same storage each time: a second process, or the same one restarted. */
  open(options: QueueOptions): Promise<JobQueue>;
  dispose(): Promise<void>;
};

const BACKOFF_MS = 20;
const LEASE_MS = 300;
const OPTIONS: QueueOptions = { attempts: 3, backoffMs: BACKOFF_MS, leaseMs: LEASE_MS };

/**
 * The rules every job queue adapter keeps. Each test uses its own queue name, so tests never see
 * each other's jobs on the shared database or Redis.
 */
export function jobQueueContract(setup: () => Promise<QueueUnderTest>): void {
  let sut: QueueUnderTest;
  let opened: JobQueue[] = [];
  let gates: Deferred[] = [];
  let name: string;

  before(async () => {
    sut = await setup();
  });
  after(() => sut.dispose());
  beforeEach(() => {
    name = `test-${randomUUID()}`;
  });
  afterEach(async () => {
    // A closing worker waits for its running jobs, so none may be left blocked by a failed test.
    gates.forEach((g) => g.resolve());
    await Promise.all(opened.map((queue) => queue.close()));
    opened = [];
    gates = [];
  });

  /** A promise a handler can wait on; the test opens it, or the suite does after the test. */
  function gate(): Deferred {
    const g = deferred();
    gates.push(g);
    return g;
  }

  async function openQueue(options: QueueOptions = OPTIONS): Promise<JobQueue> {
    const queue = await sut.open(options);
    opened.push(queue);
    return queue;
  }

  describe('a job id is enqueued once', () => {
    it('a job enqueued twice waits once and runs once, with its id, name and payload', async () => {
      const queue = await openQueue();
      await queue.enqueue(name, 'job-a', { n: 1 });
      await queue.enqueue(name, 'job-a', { n: 2 });
      expect((await queue.depth(name)).waiting).to.equal(1);

      const runs: Job[] = [];
      queue.process(name, async (job) => {
        runs.push(job);
      });
      await waitFor(async () => (await queue.status(name, 'job-a'))?.state === 'completed');

      expect(runs).to.deep.equal([{ id: 'job-a', name, payload: { n: 1 }, attempt: 1 }]);
      expect(await queue.depth(name)).to.deep.equal({ waiting: 0, active: 0, delayed: 0, failed: 0 });
    });

    it('a job enqueued again after it completed is not queued again', async () => {
      const queue = await openQueue();
      let runs = 0;
      const worker = queue.process(name, async () => {
        runs += 1;
      });
      await queue.enqueue(name, 'job-a', {});
      await waitFor(async () => (await queue.status(name, 'job-a'))?.state === 'completed');
      await worker.close();

      // With no worker running, a second copy would sit waiting.
      await queue.enqueue(name, 'job-a', {});

      expect(await queue.depth(name)).to.deep.equal({ waiting: 0, active: 0, delayed: 0, failed: 0 });
      expect((await queue.status(name, 'job-a'))?.state).to.equal('completed');
      expect(runs).to.equal(1);
    });

    it('a queue name or job id with ":" or an empty one is refused before anything is stored', async () => {
      const queue = await openQueue();
      await expectRefused(queue.enqueue(name, 'event:1', {}));
      await expectRefused(queue.enqueue(name, '', {}));
      await expectRefused(queue.enqueue('drain:keys', 'job-a', {}));
      expect(() => queue.process('drain:keys', async () => undefined)).to.throw(InvalidJobKeyError);
      expect(await queue.depth(name)).to.deep.equal({ waiting: 0, active: 0, delayed: 0, failed: 0 });
    });
  });

  describe('a job enqueued with a delay', () => {
    it('waits as delayed until its delay has passed, then runs once; a negative or fractional delay is refused', async () => {
      const queue = await openQueue();
      const ran: number[] = [];
      const enqueued = Date.now();
      await queue.enqueue(name, 'job-a', {}, { delayMs: 400 });
      expect(await queue.depth(name)).to.deep.equal({ waiting: 0, active: 0, delayed: 1, failed: 0 });
      expect((await queue.status(name, 'job-a'))?.state).to.equal('delayed');
      queue.process(name, async () => {
        ran.push(Date.now() - enqueued);
      });
      await waitFor(async () => (await queue.status(name, 'job-a'))?.state === 'completed');
      expect(ran).to.have.length(1);
      expect(ran[0]).to.be.at.least(400);
      await expectRefused(queue.enqueue(name, 'job-b', {}, { delayMs: -1 }), RangeError);
      await expectRefused(queue.enqueue(name, 'job-b', {}, { delayMs: 1.5 }), RangeError);
    });
  });

  describe('a failing job is retried with exponential backoff', () => {
    it('retries after the base delay, then twice that, and completes when the handler succeeds', async () => {
      const queue = await openQueue();
      const seen: { attempt: number; at: number }[] = [];
      queue.process(name, async (job) => {
        seen.push({ attempt: job.attempt, at: Date.now() });
        if (job.attempt < 3) throw new Error(`not yet ${job.attempt}`);
      });

      await queue.enqueue(name, 'job-a', {});
      await waitFor(async () => (await queue.status(name, 'job-a'))?.state === 'completed');

      expect(seen.map((s) => s.attempt)).to.deep.equal([1, 2, 3]);
      const [first, second, third] = seen.map((s) => s.at) as [number, number, number];
      // A millisecond of slack: the delay is measured from just after the handler threw.
      expect(second - first).to.be.at.least(BACKOFF_MS - 1);
      expect(third - second).to.be.at.least(2 * BACKOFF_MS - 1);
    });

    it('a job that fails every attempt ends failed after the configured attempts, with the last error', async () => {
      const queue = await openQueue();
      const attempts: number[] = [];
      queue.process(name, async (job) => {
        attempts.push(job.attempt);
        throw new Error(`boom ${job.attempt}`);
      });

      await queue.enqueue(name, 'job-a', {});
      await waitFor(async () => (await queue.status(name, 'job-a'))?.state === 'failed');

      expect(attempts).to.deep.equal([1, 2, 3]);
      expect(await queue.status(name, 'job-a')).to.deep.equal({ state: 'failed', lastError: 'boom 3' });
      expect(await queue.depth(name)).to.deep.equal({ waiting: 0, active: 0, delayed: 0, failed: 1 });
    });

    it('a retry waits as delayed in the depth until its backoff has passed', async () => {
      const queue = await openQueue({ ...OPTIONS, backoffMs: 60_000 });
      const worker = queue.process(name, async () => {
        throw new Error('later');
      });

      await queue.enqueue(name, 'job-a', {});
      await waitFor(async () => (await queue.status(name, 'job-a'))?.state === 'delayed');
      await worker.close();

      expect(await queue.depth(name)).to.deep.equal({ waiting: 0, active: 0, delayed: 1, failed: 0 });
      expect(await queue.status(name, 'job-a')).to.deep.equal({ state: 'delayed', lastError: 'later' });
    });
  });

  describe('jobs survive a worker restart', () => {
    it('a job enqueued while no worker runs is run by a worker of a new queue instance', async () => {
      const before = await openQueue();
      await before.enqueue(name, 'job-a', { n: 1 });
      await before.close();

      const after = await openQueue();
      const runs: JsonObject[] = [];
      after.process(name, async (job) => {
        runs.push(job.payload);
      });

      await waitFor(async () => (await after.status(name, 'job-a'))?.state === 'completed');
      expect(runs).to.deep.equal([{ n: 1 }]);
    });

    it('a job whose worker stopped mid-run (as in a crash) runs again on a new instance once its lease lapses', async () => {
      const crashed = await openQueue();
      const stuck = gate();
      let startedOnCrashed = false;
      const worker = crashed.process(name, async () => {
        startedOnCrashed = true;
        await stuck.promise;
      });
      await crashed.enqueue(name, 'job-a', {});
      await waitFor(async () => startedOnCrashed);
      await worker.abandon();

      const restarted = await openQueue();
      const runs: string[] = [];
      restarted.process(name, async (job) => {
        runs.push(job.id);
      });

      await waitFor(async () => (await restarted.status(name, 'job-a'))?.state === 'completed');
      expect(runs).to.deep.equal(['job-a']);
    });
  });

  describe('depth and concurrency', () => {
    it('depth counts waiting jobs, then the ones a worker is running', async () => {
      const queue = await openQueue();
      for (const id of ['job-a', 'job-b', 'job-c']) await queue.enqueue(name, id, {});
      expect(await queue.depth(name)).to.deep.equal({ waiting: 3, active: 0, delayed: 0, failed: 0 });

      const release = gate();
      let started = 0;
      queue.process(name, async () => {
        started += 1;
        await release.promise;
      });
      await waitFor(async () => started === 1);

      expect(await queue.depth(name)).to.deep.equal({ waiting: 2, active: 1, delayed: 0, failed: 0 });
    });

    it('a worker runs at most `concurrency` jobs at once, and that many when there are enough', async () => {
      const queue = await openQueue();
      let running = 0;
      let most = 0;
      let done = 0;
      queue.process(
        name,
        async () => {
          running += 1;
          most = Math.max(most, running);
          await sleep(40);
          running -= 1;
          done += 1;
        },
        { concurrency: 2 },
      );

      for (let i = 0; i < 6; i += 1) await queue.enqueue(name, `job-${i}`, {});
      await waitFor(async () => done === 6);

      expect(most).to.equal(2);
    });
  });
}

async function expectRefused(p: Promise<unknown>, kind: new (message: string) => Error = InvalidJobKeyError): Promise<void> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(kind);
}

export async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export type Deferred = { promise: Promise<void>; resolve: () => void };

export function deferred(): Deferred {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
