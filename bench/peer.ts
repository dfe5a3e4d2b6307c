/**
 * The peer: Emmett's PostgreSQL event store (@event-driven-io/emmett-postgresql 0.42.0) against
 * ours, in one identical harness. Same server, a scratch database each, the same ~300-byte event,
 * one event per append to a stream of its own, the same pool size, the same warm-up, the same
 * writer counts and time, each store in a fresh node process (bench/peer-writer.ts says why), in
 * three rounds that alternate the stores.
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

/**
 * Issue 48's measure: the median of three alternating runs in one sitting. Rates on a shared VM move
 * by a tenth or more between one run and the next, so one pair of runs does not tell 1.96× from 2.04×.
 */
const PEER_ROUNDS = 3;

/** Both stores' runs of one round, Emmett's first. */
export type PeerRound = { readonly emmett: readonly WriterRun[]; readonly ours: readonly WriterRun[] };

export async function benchPeer(databaseUrl: string, options: { seconds: number }): Promise<Row[]> {
  const rounds: PeerRound[] = [];
  for (let i = 0; i < PEER_ROUNDS; i++) {
    const emmett = await storeRuns('emmett', databaseUrl, options.seconds);
    rounds.push({ emmett, ours: await storeRuns('ours', databaseUrl, options.seconds) });
  }
  return peerRows(rounds);
}

/**
 * At each writer count, the round whose ratio is the median stands for the pair: its two rows and
 * its ratio. The note lists every round's ratio.
 */
export function peerRows(rounds: readonly PeerRound[]): Row[] {
  const pairs = WRITERS.map((writers) => {
    const runs = rounds.map(({ emmett, ours }) => {
      const e = emmett.find((r) => r.writers === writers)!;
      const o = ours.find((r) => r.writers === writers)!;
      return { e, o, ratio: perSecond(e) > 0 ? perSecond(o) / perSecond(e) : 0 };
    });
    const median = [...runs].sort((x, y) => x.ratio - y.ratio)[(runs.length - 1) >> 1]!;
    const ratios = runs.map((r) => `${r.ratio.toFixed(2)}×`).join(', ');
    const note = `median of ${runs.length} alternating runs: ${ratios}`;
    const [emmettRuns, ourRuns] = [runs.map((r) => r.e), runs.map((r) => r.o)];
    const emmett = toRow(EMMETT_APPEND, median.e, emmettRuns);
    const ours = { ...toRow(OURS_APPEND, median.o, ourRuns, note), ratio: `${median.ratio.toFixed(2)}× Emmett` };
    return { emmett, ours };
  });
  return [...pairs.map((p) => p.emmett), ...pairs.map((p) => p.ours)];
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

/** The run that stands for a store's rows, with the errors of all its runs (`all`), so none is hidden. */
function toRow(name: string, run: WriterRun, all: readonly WriterRun[], ratios?: string): Row {
  const firstError = all.find((r) => r.firstError !== undefined)?.firstError;
  return {
    section: 'peer',
    name,
    clients: run.writers,
    count: run.count,
    perSecond: perSecond(run),
    p50ms: run.p50ms,
    p99ms: run.p99ms,
    errors: all.reduce((n, r) => n + r.errors, 0),
    note: [`pool ${POOL_SIZE}`, ratios, firstError && `first error: ${firstError}`].filter(Boolean).join('; '),
  };
}
