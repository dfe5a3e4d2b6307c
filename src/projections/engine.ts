import { Sleepers } from '../sleepers.js';
import type { Logger } from 'pino';
import { CoalescedNotify } from '../db/coalesced-notify.js';
import type { Lease, SqlDb } from '../db/sql.js';
import type { RecordedEvent } from '../events/envelope.js';
import { comparePositions, formatPosition, isAtOrAfter, type Position } from '../events/position.js';
import { HeldBackRetry, LatestAppended } from '../events/latest-appended.js';
import type { SqlEventStore } from '../events/sql/sql-event-store.js';
import type { EventStore } from '../events/store.js';
import { advanceCheckpoint, applyBatch, handlerFor } from './apply-batch.js';
import { checkpointSql, readCheckpoints, type CheckpointRow, type Stall } from './checkpoints.js';
import type { Projector } from './projector.js';
import { inlined, switchToAsync, switchToInline } from './inline.js';
import { installReadModels, staleProjectors } from './read-model-schema.js';
import { SharedLogReads } from '../events/recent-events.js';
import { replay } from './replay.js';
import { errorClassOf, isTransient, ProjectionStalledError, ProjectorEventError, STALL_AFTER_ATTEMPTS } from './stall.js';

export type EngineOptions = {
  readonly db: SqlDb;
  readonly store: EventStore;
  readonly projectors: readonly Projector[];
  readonly schema?: string;
  readonly batchSize?: number;
  /** How long an idle projector sleeps when no append notification wakes it. */
  readonly idlePollMs?: number;
  /** How often an instance without a projector's lease tries to take it over. */
  readonly leaseRetryMs?: number;
  /** The instance's one reader of the log, shared by all its loops (main.ts); absent, a reader of their own. */
  readonly reads?: SharedLogReads;
  readonly logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * The store of the log when it shares `db` with the read models: start() catches every projector
   * up and marks it inline, and the appends of a store opened with their inlineProjection write
   * their rows in the append's own transaction (./inline.ts). Absent, they run asynchronously from
   * the log, as they must on EventStoreDB.
   */
  readonly inline?: SqlEventStore;
};

export type ProjectorStatus = {
  projector: string;
  position: Position;
  eventsSeen: number;
  running: boolean;
  stalled: Stall | null;
  /** Written by every append: never behind, never stalled; position is where inline projection began. */
  inline: boolean;
};

export class ProjectionTimeoutError extends Error {
  override readonly name = 'ProjectionTimeoutError';
}

const PROGRESS_CHANNEL = 'rm_progress';
/** Longest a projector's checkpoint row may trail events it has no handler for. */
const SKIP_PERSIST_MS = 1000;

/**
 * Runs every projector in its own loop: take the projector's lease (one instance at a time),
 * read the log after its checkpoint, apply a batch and advance the checkpoint in one transaction.
 */
export class ProjectionEngine {
  readonly schema: string;
  /** Waits for progress: one Set, so thousands of waiting commands cost O(1) each to come and go. */
  private readonly progress = new Sleepers();
  private readonly loops: Promise<void>[] = [];
  private readonly running = new Set<string>();
  private stopping = false;
  private readonly sleepers = new Sleepers();
  private readonly reads: SharedLogReads;
  private readonly appended = new LatestAppended();
  private unlisten: Array<() => unknown> = [];
  /** Where each projector this instance runs stands, so a wait for them needs no query. */
  private readonly reached = new Map<string, Position>();
  /** Projectors stalled on this instance: a wait for them reads the stall from their rows. */
  private readonly stalledHere = new Set<string>();
  /** Tells waiting commands on other instances, after the batch committed. */
  private readonly progressNotify: CoalescedNotify | null;

  constructor(private readonly options: EngineOptions) {
    this.schema = options.schema ?? 'rm';
    this.reads = options.reads ?? new SharedLogReads(options.store);
    this.progressNotify = options.db.kind === 'postgres' ? new CoalescedNotify(options.db, PROGRESS_CHANNEL) : null;
  }

  /**
   * Installs missing read models, rebuilds them from the log when a projector's version changed
   * (under a lease, so of several instances starting together one rebuilds), then runs them.
   */
  async start(): Promise<void> {
    const { db, store, projectors, logger } = this.options;
    await installReadModels(db, projectors, this.schema);
    for (;;) {
      const stale = await staleProjectors(db, projectors, this.schema);
      if (stale.length === 0) break;
      const lease = await db.tryLease(`replay:${this.schema}`);
      if (!lease) {
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      try {
        if ((await staleProjectors(db, projectors, this.schema)).length === 0) break;
        logger?.warn({ stale }, 'read models changed version; rebuilding them from the event log');
        await replay({ db, store, projectors, schema: this.schema });
      } finally {
        await lease.release();
      }
    }
    const looped = this.options.inline ? projectors.filter((p) => p.followsLog) : projectors;
    if (this.options.inline) {
      // From here the commands' store, opened with inlineProjection(projectors, schema), writes the rows; this engine runs the rest.
      await switchToInline(db, this.options.inline, inlined(projectors), this.schema);
    }
    await switchToAsync(db, looped, this.schema);
    if (looped.length === 0) return;
    this.unlisten.push(
      this.options.store.onAppended((position) => {
        this.appended.note(position);
        this.wakeAll();
      }),
    );
    this.unlisten.push(await this.options.db.listen(PROGRESS_CHANNEL, () => this.advanced()));
    for (const p of looped) this.loops.push(this.runWithLease(p));
  }

  /** Finishes the batch in flight, releases every lease and stops. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeAll();
    await Promise.allSettled(this.loops);
    for (const u of this.unlisten) await u();
    this.advanced();
  }

  /** Names of the projectors this instance runs now (it holds their leases). */
  runningHere(): string[] {
    return [...this.running];
  }

  /** This engine's projectors only: a checkpoint left by a projector since removed is not lag. */
  async status(): Promise<ProjectorStatus[]> {
    const names = new Set(this.options.projectors.map((p) => p.name));
    const rows = (await readCheckpoints(this.options.db, this.schema)).filter((r) => names.has(r.projector));
    return rows.map((r) => ({
      projector: r.projector,
      position: r.position,
      eventsSeen: r.eventsSeen,
      running: r.inline || this.running.has(r.projector),
      stalled: r.stalled,
      inline: r.inline,
    }));
  }

  /**
   * Resolves once every projector, on whichever instance runs it, has applied the event at
   * `position`: commands answer only then, so a client reads its own writes. Given the types
   * of the events appended (a command's wait), it waits only for the read models that handle one
   * of them (the others' tables cannot change because of these events), and never for one that
   * follows the log; without them, for every read model not written inline. A read model stalled
   * on an event it cannot apply (on any instance: the stall is in its checkpoint row) fails the
   * wait at once with ProjectionStalledError; the events appended are in the log all the same.
   */
  async waitFor(position: Position, options: { timeoutMs?: number; eventTypes?: readonly string[] } = {}): Promise<void> {
    const types = options.eventTypes;
    // Inline read models committed with the events; no command's answer reads one that follows the log.
    const relevant = types
      ? this.options.projectors.filter((p) => !p.followsLog && (p.onAny || types.some((t) => t in p.on)))
      : this.options.projectors;
    const names = new Set(relevant.filter((p) => !this.options.inline || p.followsLog).map((p) => p.name));
    if (names.size === 0) return;
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    for (;;) {
      // Progress announced while the checkpoints are read must not be slept through.
      const seen = this.progress.mark();
      const here = this.standingHere(names, position);
      if (here === 'reached') return;
      // Projectors this instance runs are answered from memory; only others (or a stall) need their rows.
      const rows = here === 'unknown' ? (await readCheckpoints(this.options.db, this.schema)).filter((r) => names.has(r.projector)) : [];
      const behind = rows.filter((r) => !isAtOrAfter(r.position, position));
      if (here === 'unknown' && behind.length === 0 && rows.length >= names.size) return;
      const stalled = behind.find((r): r is CheckpointRow & { stalled: Stall } => r.stalled !== null);
      if (stalled) throw new ProjectionStalledError(stalled.projector, stalled.stalled.position, stalled.stalled.errorClass);
      const left = deadline - Date.now();
      if (left <= 0) {
        const late = here === 'unknown' ? behind.map((b) => b.projector) : [...names];
        throw new ProjectionTimeoutError(`read models not caught up to ${formatPosition(position)}: ${late.join(', ')}`);
      }
      await this.progress.sleep(Math.min(left, 100), seen);
    }
  }

  /**
   * Where `names` stand, as far as this instance knows: every one run here and past `position`,
   * some run here still behind it, or unknown (run elsewhere, or stalled: their rows tell).
   */
  private standingHere(names: ReadonlySet<string>, position: Position): 'reached' | 'behind' | 'unknown' {
    let standing: 'reached' | 'behind' = 'reached';
    for (const name of names) {
      const at = this.running.has(name) && !this.stalledHere.has(name) ? this.reached.get(name) : undefined;
      if (!at) return 'unknown';
      if (!isAtOrAfter(at, position)) standing = 'behind';
    }
    return standing;
  }

  private async runWithLease(p: Projector): Promise<void> {
    const leaseName = `projection:${this.schema}:${p.name}`;
    while (!this.stopping) {
      let lease: Lease | null = null;
      try {
        lease = await this.options.db.tryLease(leaseName);
      } catch (e) {
        this.options.logger?.warn({ err: e, projector: p.name }, 'projector lease unavailable');
      }
      if (!lease) {
        await this.sleep(this.options.leaseRetryMs ?? 1000);
        continue;
      }
      this.running.add(p.name);
      this.reached.delete(p.name);
      let lost = false;
      void lease.lost.then(() => {
        lost = true;
        this.wakeAll();
      });
      try {
        await this.project(p, () => this.stopping || lost);
      } finally {
        this.running.delete(p.name);
        this.reached.delete(p.name);
        await lease.release();
      }
    }
  }

  private async project(p: Projector, shouldStop: () => boolean): Promise<void> {
    const { db } = this.options;
    const batchSize = this.options.batchSize ?? 500;
    let checkpoint = await this.checkpointOf(p);
    // Events read past the checkpoint row that this projector has no handler for: their move is
    // written at most every SKIP_PERSIST_MS (or before real work, or when idle), not per batch.
    // Forgetting it costs a restart only a re-read of events it ignores.
    const skipped: { since: number; to: Position | null; seen: number } = { since: 0, to: null, seen: 0 };
    const persistSkipped = async () => {
      if (!skipped.to) return;
      const outcome = await advanceCheckpoint(db, this.schema, p, checkpoint, skipped.to, skipped.seen);
      Object.assign(skipped, { to: null, seen: 0 });
      checkpoint = outcome.checkpoint;
      this.reached.set(p.name, checkpoint);
    };
    let limit = batchSize;
    let failures = 0;
    let strikes = 0;
    const heldBack = new HeldBackRetry();
    while (!shouldStop()) {
      let batch: RecordedEvent[];
      try {
        // An append announced while this read runs must not be slept through.
        const mark = this.sleepers.mark();
        const from = skipped.to ?? checkpoint;
        batch = await this.reads.read(from, limit);
        if (batch.length === 0) {
          await persistSkipped();
          await this.sleep(this.appended.isAfter(from) ? heldBack.next() : (this.options.idlePollMs ?? 250), mark);
          continue;
        }
        heldBack.reset();
        const last = batch[batch.length - 1]!.position;
        if (!batch.some((e) => handlerFor(p, e))) {
          if (!skipped.to) skipped.since = Date.now();
          Object.assign(skipped, { to: last, seen: skipped.seen + batch.length });
          this.reached.set(p.name, last);
          this.advanced();
          if (Date.now() - skipped.since >= SKIP_PERSIST_MS) await persistSkipped();
          continue;
        }
        await persistSkipped();
        const outcome = await applyBatch(db, this.schema, p, checkpoint, batch);
        checkpoint = outcome.checkpoint;
        this.reached.set(p.name, checkpoint);
        if (outcome.applied) {
          this.advanced();
          this.progressNotify?.send();
        }
        // Its transaction held back events committed meanwhile from the others' reads: let them look again.
        this.wakeAll();
        limit = batchSize;
        failures = 0;
        strikes = 0;
      } catch (e) {
        const failing = e instanceof ProjectorEventError && !isTransient(e.cause) ? e : null;
        if (failing && failing.index > 0) {
          // Apply the events before the failing one first, so the projector stops right at it.
          limit = failing.index;
          continue;
        }
        failures = Math.min(failures + 1, 8);
        strikes = failing ? strikes + 1 : 0;
        this.options.logger?.error({ err: e, projector: p.name, at: formatPosition(checkpoint) }, 'projection batch failed; retrying');
        if (failing && strikes >= STALL_AFTER_ATTEMPTS) {
          checkpoint = await this.stallAt(p, checkpoint, failing, shouldStop).catch(() => checkpoint);
          failures = 0;
          strikes = 0;
          continue;
        }
        await this.sleep(Math.min(30_000, 100 * 2 ** failures));
        checkpoint = await this.checkpointOf(p).catch(() => checkpoint);
        Object.assign(skipped, { to: null, seen: 0 });
      }
    }
  }

  /**
   * Records the stall in the checkpoint row (every instance sees it) and waits, never skipping
   * the event, until the checkpoint moves: an operator's skip, or a replay. A restart retries.
   * Answers the checkpoint to continue from.
   */
  private async stallAt(p: Projector, checkpoint: Position, failure: ProjectorEventError, shouldStop: () => boolean): Promise<Position> {
    const { position } = failure.event;
    const errorClass = errorClassOf(failure.cause);
    await this.options.db.query(checkpointSql.markStalled(this.schema), [
      p.name,
      checkpoint.commit.toString(),
      checkpoint.prepare.toString(),
      position.commit.toString(),
      position.prepare.toString(),
      errorClass,
    ]);
    await this.options.db.query('SELECT pg_notify($1, $2)', [PROGRESS_CHANNEL, p.name]);
    this.stalledHere.add(p.name);
    this.advanced();
    this.options.logger?.error(
      {
        err: failure.cause,
        projector: p.name,
        position: formatPosition(position),
        eventId: failure.event.metadata.eventId,
        eventType: failure.event.type,
        errorClass,
      },
      'projector stalled on an event it cannot apply; `npm run projections -- skip` moves it past once the cause is understood',
    );
    try {
      while (!shouldStop()) {
        // Appends wake it (a skip appends its record); the poll covers a replay's swap.
        await this.sleep(5_000);
        const now = await this.checkpointOf(p).catch(() => checkpoint);
        if (comparePositions(now, checkpoint) !== 0) return now;
      }
      return checkpoint;
    } finally {
      this.stalledHere.delete(p.name);
    }
  }

  private async checkpointOf(p: Projector): Promise<Position> {
    const row = (await readCheckpoints(this.options.db, this.schema)).find((r) => r.projector === p.name);
    if (!row) throw new Error(`read model ${p.name} is not installed in schema ${this.schema}`);
    return row.position;
  }

  private sleep(ms: number, since?: number): Promise<void> {
    return this.stopping ? Promise.resolve() : this.sleepers.sleep(ms, since);
  }

  /** Progress made here or announced by another instance: waiters look again. */
  private advanced(): void {
    this.progress.wakeAll();
  }

  private wakeAll(): void {
    this.sleepers.wakeAll();
  }
}
