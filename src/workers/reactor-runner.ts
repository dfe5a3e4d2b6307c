import { readFileSync } from 'node:fs';
import { HeldBackRetry, LatestAppended } from '../events/latest-appended.js';
import { Sleepers } from '../sleepers.js';
import type { Lease, SqlDb } from '../db/sql.js';
import { START, type Position } from '../events/position.js';
import type { EventStore } from '../events/store.js';
import type { Logger } from '../logger.js';
import type { RecordedEvent } from '../events/envelope.js';
import type { Reactor } from './reactor.js';
import type { JobWorker } from './queue/queue.js';
import { SharedLogReads } from '../events/recent-events.js';

const SCHEMA_SQL = readFileSync(new URL('./reactor-checkpoints.sql', import.meta.url), 'utf8');
const BATCH = 100;
/** Longest a reactor's checkpoint may trail events it had nothing to do for (see follow). */
const SKIP_PERSIST_MS = 1000;

export type ReactorRunnerOptions = {
  readonly db: SqlDb;
  readonly store: Pick<EventStore, 'readAll' | 'onAppended'>;
  readonly reactors: readonly Reactor[];
  readonly logger: Logger;
  /** How long an idle loop waits for news before it looks at the log again. */
  readonly idlePollMs?: number;
  /** How long a failed reaction waits before it runs again (it never skips the event). */
  readonly retryMs?: number;
  /** The instance's one reader of the log, shared by all its loops (main.ts); absent, a reader of their own. */
  readonly reads?: SharedLogReads;
};

/**
 * Runs each reactor on one instance at a time (a lease, as projectors have), from its checkpoint,
 * at least once per event: the checkpoint moves only after the reactions of a batch ran. A
 * reaction that fails is retried on the same event, so nothing is lost between an event and its job.
 */
export class ReactorRunner {
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private readonly sleepers = new Sleepers();
  private readonly appended = new LatestAppended();
  private readonly reads: SharedLogReads;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: ReactorRunnerOptions) {
    this.reads = options.reads ?? new SharedLogReads(options.store);
  }

  async start(): Promise<void> {
    await this.options.db.exec(SCHEMA_SQL);
    this.unsubscribe = this.options.store.onAppended((position) => {
      this.appended.note(position);
      this.wake();
    });
    for (const r of this.options.reactors) this.loops.push(this.run(r));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    this.wake();
    await Promise.all(this.loops);
  }

  private async run(reactor: Reactor): Promise<void> {
    while (!this.stopping) {
      const lease = await this.options.db.tryLease(`reactor:${reactor.name}`);
      if (!lease) {
        await this.idle(1000);
        continue;
      }
      try {
        await this.follow(reactor, lease);
      } finally {
        await lease.release();
      }
    }
  }

  private async follow(reactor: Reactor, lease: Lease): Promise<void> {
    let lost = false;
    void lease.lost.then(() => {
      lost = true;
      this.wake();
    });
    let at = await this.checkpoint(reactor.name);
    // A batch the reactor had nothing to do for moves the checkpoint row at most every
    // SKIP_PERSIST_MS (idle polls included, and when the loop ends): forgetting that move costs a
    // restart only a re-read of events it ignores, and every write it saves is one less per append.
    let saved = { at, when: Date.now() };
    const save = async () => {
      if (saved.at === at) return;
      await this.save(reactor.name, at);
      saved = { at, when: Date.now() };
    };
    const saveIfDue = () => (Date.now() - saved.when >= SKIP_PERSIST_MS ? save() : Promise.resolve());
    const idlePollMs = this.options.idlePollMs ?? 500;
    const heldBack = new HeldBackRetry();
    try {
      while (!this.stopping && !lost) {
        const mark = this.sleepers.mark();
        const events = await this.reads.read(at, BATCH);
        if (events.length === 0) {
          await saveIfDue();
          await this.idle(this.appended.isAfter(at) ? heldBack.next() : idlePollMs, mark);
          continue;
        }
        heldBack.reset();
        const gone = () => this.stopping || lost;
        const mine = events.filter((e) => reactor.types.has(e.type));
        const chosen =
          mine.length > 0 && reactor.worthReacting
            ? await this.retried(reactor, mine[0]!, () => reactor.worthReacting!(mine), gone)
            : { value: mine };
        if (!chosen) return;
        for (const event of chosen.value) {
          if (!(await this.retried(reactor, event, () => reactor.react(event), gone))) return;
        }
        at = events.at(-1)!.position;
        await (chosen.value.length > 0 ? save() : saveIfDue());
        // A short page held all the log had when it was read: only news since (an append, which
        // wakes the loop) can add to it, so the loop waits for that rather than look at the empty
        // rest of the log after every page, one read in two under load.
        if (events.length < BATCH && !this.appended.isAfter(at)) await this.idle(idlePollMs, mark);
      }
    } finally {
      if (!lost)
        await save().catch((err: unknown) => this.options.logger.warn({ err, reactor: reactor.name }, 'reactor checkpoint not saved'));
    }
  }

  /**
   * Runs a step of the reactor's work on `event` until it succeeds: a failure waits and runs it
   * again, so no event is skipped. Undefined when the loop stops or loses its lease first.
   */
  private async retried<T>(
    reactor: Reactor,
    event: RecordedEvent,
    step: () => Promise<T>,
    gone: () => boolean,
  ): Promise<{ value: T } | undefined> {
    for (;;) {
      try {
        return { value: await step() };
      } catch (err) {
        this.options.logger.error(
          { err, reactor: reactor.name, eventId: event.metadata.eventId, eventType: event.type },
          'reaction failed; retrying',
        );
      }
      if (gone()) return undefined;
      await this.idle(this.options.retryMs ?? 1000);
    }
  }

  private async checkpoint(name: string): Promise<Position> {
    const row = (
      await this.options.db.query<{ commit_pos: string; prepare_pos: string }>(
        'SELECT commit_pos::text AS commit_pos, prepare_pos::text AS prepare_pos FROM reactors.checkpoints WHERE reactor = $1',
        [name],
      )
    ).rows[0];
    return row ? { commit: BigInt(row.commit_pos), prepare: BigInt(row.prepare_pos) } : START;
  }

  private async save(name: string, at: Position): Promise<void> {
    await this.options.db.query(
      `INSERT INTO reactors.checkpoints (reactor, commit_pos, prepare_pos) VALUES ($1, $2, $3)
       ON CONFLICT (reactor) DO UPDATE SET commit_pos = EXCLUDED.commit_pos, prepare_pos = EXCLUDED.prepare_pos, updated_at = now()`,
      [name, at.commit.toString(), at.prepare.toString()],
    );
  }

  private wake(): void {
    this.sleepers.wakeAll();
  }

  private idle(ms: number, since?: number): Promise<void> {
    return this.sleepers.sleep(ms, since);
  }
}

/** Reactors and the workers of the queues they fill, run together with the service. */
export type Workers = {
  /** Stops the reactors, then lets running jobs finish. */
  stop(): Promise<void>;
  /** Stops as a crash would: running jobs are left to their lease and run again elsewhere. */
  abandon(): Promise<void>;
};

/** Starts the runner's reactors beside `workers`; either stop ends the reactors first, so no job is enqueued to a closed worker. */
export async function runTogether(runner: ReactorRunner, workers: readonly JobWorker[]): Promise<Workers> {
  await runner.start();
  return {
    stop: async () => {
      await runner.stop();
      await Promise.all(workers.map((w) => w.close()));
    },
    abandon: async () => {
      await runner.stop();
      await Promise.all(workers.map((w) => w.abandon()));
    },
  };
}
