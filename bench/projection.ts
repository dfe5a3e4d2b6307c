import { randomUUID } from 'node:crypto';
import type { SqlDb } from '../src/db/sql.js';
import { SqlEventStore } from '../src/events/sql/sql-event-store.js';
import type { EventStore } from '../src/events/store.js';
import { ProjectionEngine } from '../src/projections/engine.js';
import { eventsFeedProjector } from '../src/projections/events-feed/events-feed.js';
import { allProjectors } from '../src/projections/index.js';
import { replay } from '../src/projections/replay.js';
import { benchEvent } from './bench-event.js';
import { appendReplicas, type LoggedEvent } from './domain-log.js';
import { percentile, type Row } from './measure.js';

/**
 * The EventStoreDB-style path, forced on PostgreSQL: read models projected asynchronously from the
 * log. Appends arrive at `rate` per second for `seconds`, each its own stream; the lag of one is the
 * time from its append's answer until every read model has applied it, as a command waiting for its
 * read models would see it. A run's length of appends first warms the engine up, not counted, as
 * every HTTP row's workload runs once first (commands.ts): the first batches after a start run
 * behind while the loops, the pools and the JIT warm (docs/decisions.md, "Tooling").
 */
export async function benchAsyncLag(
  db: SqlDb,
  options: {
    rate: number;
    seconds: number;
    projectionsDb?: SqlDb;
    /** The log, when not PostgreSQL's beside the read models (the EventStoreDB row), with what the row says of it. */
    log?: { readonly store: EventStore; readonly label: string };
  },
): Promise<Row[]> {
  const store = options.log?.store ?? (await SqlEventStore.open(db));
  // As the service runs it: the projectors on a pool of their own, never queued behind commands.
  const engine = new ProjectionEngine({ db: options.projectionsDb ?? db, store, projectors: allProjectors });
  await engine.start();
  const lags: number[] = [];
  let errors = 0;
  const total = options.rate * options.seconds;
  const warmUp = total;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  try {
    for (let i = -warmUp; i < total; i++) {
      // Paced by the clock, not by answers: a slow projection must not slow the arrivals.
      const due = started + ((i + warmUp) * 1000) / options.rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      inFlight.push(
        (async () => {
          const appended = await store.appendToStream(`bench-${randomUUID()}`, [benchEvent(i)], 'no_stream');
          const t0 = performance.now();
          await engine.waitFor(appended.position, { eventTypes: ['BenchHappened'], timeoutMs: 30_000 });
          if (i >= 0) lags.push(performance.now() - t0);
        })().catch(() => void errors++),
      );
    }
    await Promise.all(inFlight);
  } finally {
    await engine.stop();
  }
  const achieved = (total + warmUp) / ((performance.now() - started) / 1000);
  return [
    {
      section: 'projection',
      name: `async projection lag at ${options.rate.toLocaleString('en-US')} appends/s`,
      count: lags.length,
      perSecond: achieved,
      p50ms: percentile(lags, 50),
      p99ms: percentile(lags, 99),
      errors,
      note: [
        options.log?.label,
        `${allProjectors.length} read models, their own loops; the first ${options.seconds} s (warm-up) not counted`,
      ]
        .filter((n) => n !== undefined)
        .join('; '),
    },
  ];
}

/**
 * Replay of the whole log into a fresh schema and the swap, as `npm run replay` does, over bench
 * events: only `stream_heads` projects them, set-based, so this is the engine's own ceiling.
 */
export async function benchReplay(db: SqlDb, events: number): Promise<Row[]> {
  const store = await SqlEventStore.open(db);
  const have = Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM es.events')).rows[0]?.n ?? 0);
  await fill(store, events - have);
  return replayRow(db, store, 'replay of bench events (stream_heads only) into a fresh schema + swap', null);
}

/**
 * The same over a log of domain events: `recorded` (the command workloads' own log) replicated with
 * fresh ids until it holds `events`, so every read model projects what the service writes.
 */
export async function benchDomainReplay(db: SqlDb, recorded: readonly LoggedEvent[], events: number): Promise<Row[]> {
  const store = await SqlEventStore.open(db);
  const appended = await appendReplicas(store, recorded, events);
  const replicas = Math.round(appended / recorded.length);
  const log = `the command workloads' log, about ${replicas} copies`;
  const all = await replayRow(db, store, 'replay of a domain log into a fresh schema + swap', log);
  // The events feed's write cost (docs/events.md): the same log without it, and through it alone, each in a schema of its own.
  const others = allProjectors.filter((p) => p !== eventsFeedProjector);
  const without = await replay({ db, store, projectors: others, batchSize: 5000, schema: 'rm_bench_no_feed' });
  const alone = await replay({ db, store, projectors: [eventsFeedProjector], batchSize: 5000, schema: 'rm_bench_feed' });
  const row = (name: string, report: { events: number; eventsPerSecond: number }, models: number): Row => ({
    section: 'replay',
    name,
    count: report.events,
    perSecond: report.eventsPerSecond,
    note: `${models} read models; ${log}`,
  });
  return [...all, row('the same without the events feed', without, others.length), row('the same through the events feed alone', alone, 1)];
}

async function replayRow(db: SqlDb, store: SqlEventStore, name: string, log: string | null): Promise<Row[]> {
  const report = await replay({ db, store, projectors: allProjectors, batchSize: 5000 });
  const note = [`${allProjectors.length} read models`, log].filter((n) => n !== null).join('; ');
  return [{ section: 'replay', name, count: report.events, perSecond: report.eventsPerSecond, note }];
}

/** Appends `n` bench events in batches of 500 per stream, 4 writers: the log replay reads. */
async function fill(store: SqlEventStore, n: number): Promise<void> {
  const perAppend = 500;
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < n) {
        const count = Math.min(perAppend, n - next);
        next += count;
        await store.appendToStream(
          `fill-${randomUUID()}`,
          Array.from({ length: count }, (_, i) => benchEvent(i)),
          'no_stream',
        );
      }
    }),
  );
}
