import { randomUUID } from 'node:crypto';
import type { SqlDb } from '../src/db/sql.js';
import { SqlEventStore } from '../src/events/sql/sql-event-store.js';
import { ProjectionEngine } from '../src/projections/engine.js';
import { allProjectors } from '../src/projections/index.js';
import { replay } from '../src/projections/replay.js';
import { benchEvent } from './bench-event.js';
import { percentile, type Row } from './measure.js';

/**
 * The EventStoreDB-style path, forced on PostgreSQL: read models projected asynchronously from the
 * log. Appends arrive at `rate` per second for `seconds`, each its own stream; the lag of one is the
 * time from its append's answer until every read model has applied it, as a command waiting for its
 * read models would see it. The first second's appends warm the engine up and are not counted: the
 * first batches after a start ran 50–130 ms behind while the loops, the pools and the JIT warmed
 * (measured: every lag over 50 ms of a run fell in its first 200 ms), as every other row gets a trial run.
 */
export async function benchAsyncLag(db: SqlDb, options: { rate: number; seconds: number; projectionsDb?: SqlDb }): Promise<Row[]> {
  const store = await SqlEventStore.open(db);
  // As the service runs it: the projectors on a pool of their own, never queued behind commands.
  const engine = new ProjectionEngine({ db: options.projectionsDb ?? db, store, projectors: allProjectors });
  await engine.start();
  const lags: number[] = [];
  let errors = 0;
  const total = options.rate * options.seconds;
  const warmUp = options.rate;
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
      note: `${allProjectors.length} read models, their own loops; the first second (warm-up) not counted`,
    },
  ];
}

/** Replay of the whole log into a fresh schema and the swap, as `npm run replay` does. */
export async function benchReplay(db: SqlDb, events: number): Promise<Row[]> {
  const store = await SqlEventStore.open(db);
  const have = Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM es.events')).rows[0]?.n ?? 0);
  await fill(store, events - have);
  const report = await replay({ db, store, projectors: allProjectors, batchSize: 5000 });
  return [
    {
      section: 'replay',
      name: 'replay into a fresh schema + swap',
      count: report.events,
      perSecond: report.eventsPerSecond,
      note: `${allProjectors.length} read models`,
    },
  ];
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
