/**
 * One event store's appends, in a node process of its own: bench/peer.ts starts it once for Emmett
 * and once for ours (DATABASE_URL: a scratch database; BENCH_PEER_PLAN: a WriterPlan as JSON) and
 * reads one JSON line of WriterRun from its stdout.
 *
 * A process each, because Emmett's connection layer (dumbo) sets node-postgres's type parsers for
 * the whole process (int8 as BigInt, json through its own parser) when it opens its pool: in one
 * process with ours it would change how our rows parse, and the rest of the bench's with them.
 */
import { randomUUID } from 'node:crypto';
import type { Event } from '@event-driven-io/emmett';
import { PostgresDb } from '../src/db/postgres-db.js';
import { SqlEventStore } from '../src/events/sql/sql-event-store.js';
import { BENCH_EVENT_TYPE, BENCH_NOTE, benchEvent } from './bench-event.js';
import { exitWithParent } from './child-process.js';
import { percentile } from './measure.js';

export type PeerStore = 'emmett' | 'ours';

export type WriterPlan = {
  readonly store: PeerStore;
  /** Concurrent writers of each measured run, in order. */
  readonly writers: readonly number[];
  readonly seconds: number;
  /** Appends before the first run, at the most writers: JIT, pool and server caches warm. */
  readonly warmup: number;
  /** Our pool's size; Emmett's is its own default (see bench/peer.ts). */
  readonly poolSize: number;
};

export type WriterRun = {
  readonly writers: number;
  readonly count: number;
  readonly errors: number;
  readonly seconds: number;
  readonly p50ms: number;
  readonly p99ms: number;
  readonly firstError?: string;
};

/** The same event for both stores: ~300 bytes of data, as a command's event. */

type BenchHappened = Event<typeof BENCH_EVENT_TYPE, { i: number; note: string }>;

/** One append of one event to a new stream, and the store's close. */
type Appender = { append(i: number): Promise<unknown>; close(): Promise<void> };

/**
 * Emmett as its docs use it: getPostgreSQLEventStore(connectionString), which creates its schema on
 * first use (migrated here up front), and appendToStream with the "stream must be new" expectation.
 * Imported only here, so the process that measures ours never loads it.
 */
async function openEmmett(url: string): Promise<Appender> {
  const { getPostgreSQLEventStore } = await import('@event-driven-io/emmett-postgresql');
  const { STREAM_DOES_NOT_EXIST } = await import('@event-driven-io/emmett');
  const store = getPostgreSQLEventStore(url);
  await store.schema.migrate();
  return {
    append: (i) =>
      store.appendToStream<BenchHappened>(`bench-${randomUUID()}`, [{ type: BENCH_EVENT_TYPE, data: { i, note: BENCH_NOTE } }], {
        expectedStreamVersion: STREAM_DOES_NOT_EXIST,
      }),
    close: () => store.close(),
  };
}

/** Ours as the service opens it, without inline read models: the bare append, as Emmett's. */
async function openOurs(url: string, poolSize: number): Promise<Appender> {
  const db = new PostgresDb(url, { max: poolSize, applicationName: 'dss-bench-peer' });
  const store = await SqlEventStore.open(db);
  return {
    append: (i) => store.appendToStream(`bench-${randomUUID()}`, [benchEvent(i)], 'no_stream'),
    close: async () => {
      await store.close();
      await db.close();
    },
  };
}

/**
 * `writers` loops, each appending and waiting for the answer before its next, while `more()` says
 * so. A failed append is counted, not thrown: the run's row shows it.
 */
async function drive(appender: Appender, writers: number, more: () => boolean): Promise<WriterRun> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let i = 0;
  const started = performance.now();
  const writer = async () => {
    while (more()) {
      const t0 = performance.now();
      try {
        await appender.append(i++);
        latencies.push(performance.now() - t0);
      } catch (e) {
        errors++;
        firstError ??= e instanceof Error ? e.message : String(e);
      }
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
  const seconds = (performance.now() - started) / 1000;
  const p = { p50ms: percentile(latencies, 50), p99ms: percentile(latencies, 99) };
  return { writers, count: latencies.length, errors, seconds, ...p, ...(firstError === undefined ? {} : { firstError }) };
}

async function main(): Promise<void> {
  const plan = JSON.parse(process.env.BENCH_PEER_PLAN ?? '') as WriterPlan;
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set');
  const appender = plan.store === 'emmett' ? await openEmmett(url) : await openOurs(url, plan.poolSize);
  exitWithParent(() => appender.close());
  let warmup = plan.warmup;
  await drive(appender, Math.max(...plan.writers), () => warmup-- > 0);
  const runs: WriterRun[] = [];
  for (const writers of plan.writers) {
    const end = performance.now() + plan.seconds * 1000;
    runs.push(await drive(appender, writers, () => performance.now() < end));
  }
  await appender.close();
  process.stdout.write(`${JSON.stringify(runs)}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
