/**
 * The peer: Emmett's PostgreSQL event store (@event-driven-io/emmett-postgresql 0.42.0) against
 * ours, in one identical harness. Same server, a scratch database each, the same ~300-byte event,
 * one event per append to a stream of its own, the same pool size, the same warm-up, the same
 * writer counts and time, each store in a fresh node process (bench/peer-writer.ts says why).
 */
import { type Row } from './measure.js';
import { startScript } from './child-process.js';
import type { PeerStore, WriterPlan, WriterRun } from './peer-writer.js';
import { adminQuery, withScratchDatabase } from './scratch-database.js';

export const EMMETT_APPEND = 'Emmett 0.42 append (fresh stream)';
export const OURS_APPEND = 'ours append (fresh stream)';

const WRITERS = [1, 8];
const WARMUP_APPENDS = 200;
/**
 * Emmett opens its pool through dumbo, which hands node-postgres's Pool only the connection string
 * and database, so its size is node-postgres's default, 10. Ours is set to the same.
 */
const POOL_SIZE = 10;
/** Start-up, schema and warm-up on top of the measured time; a writer past it is killed. */
const SLACK_MS = 120_000;

export async function benchPeer(databaseUrl: string, options: { seconds: number }): Promise<Row[]> {
  const emmett = await storeRuns('emmett', databaseUrl, options.seconds);
  const ours = await storeRuns('ours', databaseUrl, options.seconds);
  return [
    ...emmett.map((run) => toRow(EMMETT_APPEND, run)),
    ...ours.map((run) => {
      const peer = emmett.find((e) => e.writers === run.writers);
      const ratio = peer && perSecond(peer) > 0 ? `${(perSecond(run) / perSecond(peer)).toFixed(2)}× Emmett` : undefined;
      return { ...toRow(OURS_APPEND, run), ...(ratio === undefined ? {} : { ratio }) };
    }),
  ];
}

/** One store's runs at each writer count, in its own scratch database and its own process. */
async function storeRuns(store: PeerStore, databaseUrl: string, seconds: number): Promise<WriterRun[]> {
  const plan: WriterPlan = { store, writers: WRITERS, seconds, warmup: WARMUP_APPENDS, poolSize: POOL_SIZE };
  return withScratchDatabase(databaseUrl, `dss_bench_peer_${store}`, async (url) => {
    // Neither store pays for flushing the pages the one before it dirtied. A role that may not
    // checkpoint (PostgreSQL 15's pg_checkpoint) runs without it.
    await adminQuery(databaseUrl, 'CHECKPOINT').catch(() => undefined);
    const writer = startScript('bench/peer-writer.ts', { DATABASE_URL: url, BENCH_PEER_PLAN: JSON.stringify(plan) });
    try {
      const stdout = await writer.finished(seconds * 1000 * WRITERS.length + SLACK_MS);
      return JSON.parse(stdout.trim().split('\n').pop()!) as WriterRun[];
    } finally {
      await writer.stop();
    }
  });
}

function perSecond(run: WriterRun): number {
  return run.count / run.seconds;
}

function toRow(name: string, run: WriterRun): Row {
  return {
    section: 'peer',
    name,
    clients: run.writers,
    count: run.count,
    perSecond: perSecond(run),
    p50ms: run.p50ms,
    p99ms: run.p99ms,
    errors: run.errors,
    note: `pool ${POOL_SIZE}${run.firstError === undefined ? '' : `; first error: ${run.firstError}`}`,
  };
}
