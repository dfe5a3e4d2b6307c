import type { SqlDb } from '../db/sql.js';
import type { EventStore } from '../events/store.js';
import type { JobQueue } from '../workers/queue/queue.js';
import type { ProjectorStatus } from '../projections/engine.js';
import { formatPosition } from '../events/position.js';
import { projectionLag, type ProjectionStatusSource } from './projection-lag.js';

export type ReadinessSources = {
  readonly db: Pick<SqlDb, 'ping'>;
  readonly store: Pick<EventStore, 'headPosition' | 'readAll'>;
  readonly engine: ProjectionStatusSource;
  readonly queue: Pick<JobQueue, 'depth'>;
  readonly queueNames: readonly string[];
};

export type ReadinessOptions = {
  /** A projector whose oldest unapplied event is older than this makes the instance unready. */
  readonly maxLagSeconds?: number;
  /** A store that has not answered within this is counted as down. */
  readonly checkTimeoutMs?: number;
};

export type CheckName = 'database' | 'events' | 'queue' | 'projections';

/** A projector stopped on an event it cannot apply: where, and the error's class (its text stays in the log). */
export type StalledProjector = {
  readonly status: 'stalled';
  readonly position: string;
  readonly errorClass: string;
  readonly since: string;
};

/** Reasons are words, never error text: /readyz must not leak hosts, SQL or paths. */
export type Check =
  | { readonly status: 'ok'; readonly lagSeconds?: Readonly<Record<string, number>> }
  | {
      readonly status: 'failed';
      readonly reason: 'unreachable' | 'timeout' | 'behind' | 'stalled';
      readonly lagSeconds?: Readonly<Record<string, number>>;
      /** By projector name, for reason 'stalled'. */
      readonly stalled?: Readonly<Record<string, StalledProjector>>;
    };

export type Readiness = { readonly ready: boolean; readonly checks: Readonly<Record<CheckName, Check>> };

export const DEFAULT_MAX_LAG_SECONDS = 30;
export const DEFAULT_CHECK_TIMEOUT_MS = 2000;

/** Any queue name answers for the queue's backend when the service watches none yet. */
const PROBE_QUEUE = 'readiness-probe';

class CheckTimeout extends Error {}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Ready when every backing store answers and every projector is within the lag bound: a
 * load balancer then sends traffic only to instances whose commands can answer in time
 * (commands wait for their events to be projected).
 */
export async function checkReadiness(
  sources: ReadinessSources,
  options: ReadinessOptions = {},
  onError: (error: unknown, check: CheckName) => void = () => undefined,
): Promise<Readiness> {
  const maxLag = options.maxLagSeconds ?? DEFAULT_MAX_LAG_SECONDS;
  const timeoutMs = options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;

  const run = async (name: CheckName, probe: () => Promise<Check>): Promise<Check> => {
    try {
      return await withTimeout(probe(), timeoutMs);
    } catch (error) {
      onError(error, name);
      return { status: 'failed', reason: error instanceof CheckTimeout ? 'timeout' : 'unreachable' };
    }
  };
  const ok: Check = { status: 'ok' };
  const queueNames = sources.queueNames.length > 0 ? sources.queueNames : [PROBE_QUEUE];

  const [database, events, queue, projections] = await Promise.all([
    run('database', async () => ((await sources.db.ping()) ? ok : { status: 'failed', reason: 'unreachable' })),
    run('events', async () => {
      await sources.store.headPosition();
      return ok;
    }),
    run('queue', async () => {
      await Promise.all(queueNames.map((name) => sources.queue.depth(name)));
      return ok;
    }),
    run('projections', async () => {
      const [lags, statuses] = await Promise.all([projectionLag(sources.engine, sources.store), sources.engine.status()]);
      const lagSeconds = Object.fromEntries(lags.map((l) => [l.projector, Math.round(l.lagSeconds * 1000) / 1000]));
      const stalled = stalledProjectors(statuses);
      if (Object.keys(stalled).length > 0) return { status: 'failed', reason: 'stalled', lagSeconds, stalled };
      return lags.every((l) => l.lagSeconds <= maxLag) ? { status: 'ok', lagSeconds } : { status: 'failed', reason: 'behind', lagSeconds };
    }),
  ]);
  const checks = { database, events, queue, projections };
  return { ready: Object.values(checks).every((c) => c.status === 'ok'), checks };
}

function stalledProjectors(statuses: readonly ProjectorStatus[]): Record<string, StalledProjector> {
  return Object.fromEntries(
    statuses.flatMap((s) =>
      s.stalled
        ? [
            [
              s.projector,
              {
                status: 'stalled' as const,
                position: formatPosition(s.stalled.position),
                errorClass: s.stalled.errorClass,
                since: s.stalled.since.toISOString(),
              },
            ],
          ]
        : [],
    ),
  );
}
