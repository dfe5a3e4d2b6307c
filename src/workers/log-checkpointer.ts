import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { deterministicUuid } from '../events/deterministic-id.js';
import type { Lease, SqlDb, SqlExecutor } from '../db/sql.js';
import type { NewEvent, RecordedEvent } from '../events/envelope.js';
import type { ChainHead } from '../events/hash-chain.js';
import { logEvents, logStreams, type LogCheckpointed } from '../events/log-events.js';
import { LogHeads } from '../events/log-heads.js';
import { formatPosition, START, type Position } from '../events/position.js';
import type { EventStore } from '../events/store.js';
import { SharedLogReads } from '../events/recent-events.js';
import type { Logger } from '../logger.js';
import { Sleepers } from '../sleepers.js';

const SCHEMA_SQL = readFileSync(new URL('./log-checkpointer.sql', import.meta.url), 'utf8');
const BATCH = 1000;
const LEASE = 'log-checkpointer';
/**
 * The least time between two looks at the log. A checkpoint serves audits, not read-your-writes,
 * and each look costs a read and a transaction, which every append would cost (docs/decisions.md, "Read models").
 */
const FOLLOW_EVERY_MS = 250;

const saveHeads = `
  INSERT INTO reactors.log_heads (stream_id, revision, hash)
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])
  ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision, hash = EXCLUDED.hash`;

const savePosition = `
  INSERT INTO reactors.log_checkpointer (only_row, commit_pos, prepare_pos, events) VALUES (true, $1, $2, $3)
  ON CONFLICT (only_row) DO UPDATE
  SET commit_pos = EXCLUDED.commit_pos, prepare_pos = EXCLUDED.prepare_pos, events = EXCLUDED.events, updated_at = now()`;

export type LogCheckpointerOptions = {
  readonly db: SqlDb;
  readonly store: Pick<EventStore, 'readAll' | 'appendToStream' | 'onAppended'>;
  /** A LogCheckpointed after every this many events of the log (LOG_CHECKPOINT_EVERY). */
  readonly every: number;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** How long an idle loop waits before it looks at the log again. */
  readonly idlePollMs?: number;
  /** The instance's one reader of the log, shared by all its loops (main.ts); absent, a reader of their own. */
  readonly reads?: SharedLogReads;
};

type State = { at: Position; heads: LogHeads };

/**
 * Reads the whole log in global order, on one instance at a time, and after every `every` events
 * appends a LogCheckpointed summarizing every stream's head (docs/audit.md). Like a reactor it is
 * never replayed. Its event id derives from the position it summarizes, so an append retried after
 * a crash, or made by a second instance, is recognised by the store instead of written twice.
 */
export class LogCheckpointer {
  private loop: Promise<void> | null = null;
  private readonly sleepers = new Sleepers();
  private readonly stopped = new AbortController();
  private unsubscribe: (() => void) | null = null;

  private readonly reads: SharedLogReads;

  constructor(private readonly options: LogCheckpointerOptions) {
    this.reads = options.reads ?? new SharedLogReads(options.store);
  }

  private get stopping(): boolean {
    return this.stopped.signal.aborted;
  }

  async start(): Promise<void> {
    await this.options.db.exec(SCHEMA_SQL);
    this.unsubscribe = this.options.store.onAppended(() => this.sleepers.wakeAll());
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped.abort();
    this.unsubscribe?.();
    this.sleepers.wakeAll();
    await this.loop;
  }

  /** Summarizes everything readable now, from where it stood; answers the checkpoints it appended. */
  async catchUp(): Promise<number> {
    await this.options.db.exec(SCHEMA_SQL);
    return this.advance(await this.load());
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const lease = await this.options.db.tryLease(LEASE);
      if (lease) {
        try {
          await this.follow(lease);
        } catch (err) {
          this.options.logger.error({ err }, 'log checkpoint failed; retrying');
        } finally {
          await lease.release();
        }
      }
      // Woken by stop() before this sleep began, it would otherwise hold stop() for a whole poll.
      if (!this.stopping) await this.sleepers.sleep(this.options.idlePollMs ?? 1000);
    }
  }

  /** While it holds the lease its state stays in memory; a failure drops it, to be loaded again. */
  private async follow(lease: Lease): Promise<void> {
    let lost = false;
    void lease.lost.then(() => {
      lost = true;
      this.sleepers.wakeAll();
    });
    const state = await this.load();
    while (!this.stopping && !lost) {
      const mark = this.sleepers.mark();
      const started = Date.now();
      await this.advance(state);
      await this.sleepers.sleep(this.options.idlePollMs ?? 1000, mark);
      await delay(Math.max(0, started + FOLLOW_EVERY_MS - Date.now()), undefined, { signal: this.stopped.signal }).catch(() => undefined);
    }
  }

  private async advance(state: State): Promise<number> {
    let appended = 0;
    for (;;) {
      const events = await this.reads.read(state.at, BATCH);
      if (events.length === 0 || this.stopping) return appended;
      const before = appended;
      const changed = new Map<string, ChainHead>();
      for (const e of events) {
        changed.set(e.streamId, state.heads.apply(e));
        if (state.heads.events % this.options.every !== 0) continue;
        // Appended before its state is saved: after a crash the same checkpoint is appended again, and deduplicated.
        await this.options.store.appendToStream(logStreams.checkpoints.id, [await this.checkpoint(e, state.heads)], 'any');
        appended++;
      }
      state.at = events[events.length - 1]!.position;
      await this.options.db.transaction((tx) => save(tx, state, changed));
      // A short page was all the log held when read, so looking again at once would find it empty,
      // unless it holds the checkpoints just appended.
      if (events.length < BATCH && appended === before) return appended;
    }
  }

  private async checkpoint(upTo: RecordedEvent, heads: LogHeads): Promise<NewEvent> {
    // In slices: it runs on the service's event loop, and hashes every stream of the log.
    const data: LogCheckpointed['data'] = { upTo: formatPosition(upTo.position), ...(await heads.summaryInSlices()) };
    const eventId = deterministicUuid('log-checkpointed', data.upTo);
    return {
      type: 'LogCheckpointed',
      data,
      metadata: {
        occurredAt: (this.options.now?.() ?? new Date()).toISOString(),
        actor: { kind: 'system', id: LEASE },
        correlationId: eventId,
        causationId: upTo.metadata.eventId,
        eventId,
        schemaVersion: logEvents.versionOf('LogCheckpointed'),
      },
    };
  }

  private async load(): Promise<State> {
    const { db } = this.options;
    const at = (
      await db.query<{ commit_pos: string; prepare_pos: string; events: string }>(
        'SELECT commit_pos::text AS commit_pos, prepare_pos::text AS prepare_pos, events::text AS events FROM reactors.log_checkpointer',
      )
    ).rows[0];
    if (!at) return { at: START, heads: new LogHeads() };
    const heads = (
      await db.query<{ stream_id: string; revision: string; hash: string }>(
        'SELECT stream_id, revision::text AS revision, hash FROM reactors.log_heads',
      )
    ).rows;
    return {
      at: { commit: BigInt(at.commit_pos), prepare: BigInt(at.prepare_pos) },
      heads: new LogHeads(
        heads.map((h) => [h.stream_id, { revision: Number(h.revision), hash: h.hash }] as const),
        Number(at.events),
      ),
    };
  }
}

async function save(tx: SqlExecutor, state: State, changed: ReadonlyMap<string, ChainHead>): Promise<void> {
  const heads = [...changed];
  await tx.query(saveHeads, [heads.map(([id]) => id), heads.map(([, h]) => h.revision), heads.map(([, h]) => h.hash)]);
  await tx.query(savePosition, [state.at.commit.toString(), state.at.prepare.toString(), state.heads.events]);
}
