/**
 * npm run bench: one run, one table (and bench/results.json), each figure beside the machine's
 * limits and the peer measured in the same run. On PostgreSQL (DATABASE_URL) it runs every row;
 * without it, the rows the embedded PGlite can run. BENCH_SECONDS sets how long each load runs
 * (default 5), BENCH_REPLAY_EVENTS the size of the replayed log (default 1,000,000). BENCH_ONLY,
 * BENCH_WORKLOADS and BENCH_CLIENTS narrow a run on PostgreSQL (bench/selection.ts); a narrowed
 * run, or one profiled (BENCH_CPU_PROF), prints its table and leaves bench/results.json, the last
 * whole run's, as it is.
 * README.md ("Benchmarks") says how to read it, docs/performance.md ("Reproduce") how to run it.
 */
import os from 'node:os';
import { PgliteDb } from '../src/db/pglite-db.js';
import { PostgresDb } from '../src/db/postgres-db.js';
import type { SqlDb } from '../src/db/sql.js';
import { EventStoreDbStore } from '../src/events/eventstoredb/eventstoredb-store.js';
import { startEsdbWire } from '../test/support/esdb-wire/server.js';
import { benchAppends } from './appends.js';
import { benchCommands, reactorLagOnEventStore, recordScenario } from './commands.js';
import { FLOOR_ORG_ROW, KEEP_ROW } from './command-workloads.js';
import { BARE_HTTP_FLOOR, BARE_HTTP_INSERT, BARE_HTTP_KEEP, BARE_HTTP_KEEP_AFTER_TOKEN, barePerSecond, benchLimits } from './limits.js';
import { table, withShareOf, type Row } from './measure.js';
import { resultsFileFor, writeResults } from './results-file.js';
import { adminQuery, withScratchDb } from './scratch-database.js';
import { benchPeer } from './peer.js';
import { benchAsyncLag, benchDomainReplay, benchReplay } from './projection.js';
import { benchPublish } from './publish.js';
import { BenchSelectionError, benchSelection, type BenchSelection } from './selection.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const replayEvents = Number(process.env.BENCH_REPLAY_EVENTS ?? 1_000_000);
/** The recorded scenario the domain log replicates: every writing workload, this many calls on each of this many connections. */
const SCENARIO = { clients: 8, requests: 40 };

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  const selection = benchSelection(process.env);
  if (!url && selection.narrowed)
    throw new BenchSelectionError('BENCH_ONLY, BENCH_WORKLOADS and BENCH_CLIENTS narrow a run on PostgreSQL (DATABASE_URL)');
  const rows: Row[] = url ? await onPostgres(url, selection) : await embedded();
  const machine = await machineLimits(url);
  // Saved before it is printed: output that cannot be written (a closed pipe) must not cost the run.
  const file = resultsFileFor(selection, url !== undefined);
  if (file) await writeResults(file, { machine, rows });
  process.stdout.write(`${machine.summary}\n\n${table(rows)}\n`);
  if (!file) process.stdout.write('\na narrowed or profiled run: bench/results.json (the last whole run) left as it was\n');
}

async function onPostgres(url: string, only: BenchSelection): Promise<Row[]> {
  const rows: Row[] = [];
  if (only.parts.has('limits')) rows.push(...(await benchLimits(url, { seconds })));
  if (only.parts.has('peer')) rows.push(...(await benchPeer(url, { seconds })));
  const redis = process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {};
  let oneInstance: Row[] = [];
  for (const instances of [1, 2] as const) {
    if (!only.parts.has(instances === 1 ? 'commands' : 'instances')) continue;
    const clients = instances === 1 ? (only.clients ?? [1, 16, 64]) : [16];
    const options = { databaseUrl: url, seconds, clients, instances, ...(only.workloads ? { workloads: only.workloads } : {}), ...redis };
    const commands = withBareRatio(await benchCommands(options), rows);
    if (instances === 1) oneInstance = commands;
    rows.push(...commands);
  }
  if (only.parts.has('lag')) rows.push(...(await asyncLag(url, 1000)));
  if (only.parts.has('eventstore')) rows.push(...(await onEventStoreTestServer(url)));
  if (only.parts.has('replay')) {
    rows.push(...(await withScratchDb(url, 'dss_bench', (db) => benchReplay(db, replayEvents))));
    const recorded = await recordScenario(url, SCENARIO);
    rows.push(...(await withScratchDb(url, 'dss_bench', (db) => benchDomainReplay(db, recorded, replayEvents))));
  }
  return withFloorShare(rows, oneInstance);
}

/** The async projection lag on a scratch database, the log PostgreSQL's there unless `log` names another. */
async function asyncLag(url: string, rate: number, log?: Parameters<typeof benchAsyncLag>[1]['log']): Promise<Row[]> {
  return withScratchDb(url, 'dss_bench', async (db, scratch) => {
    // As the service runs async projection: the projectors on a small pool of their own.
    const projectionsDb = new PostgresDb(scratch, { max: 4 });
    try {
      return await benchAsyncLag(db, { rate, seconds, projectionsDb, ...(log ? { log } : {}) });
    } finally {
      await projectionsDb.close();
    }
  });
}

/**
 * Issue 49: the async rows again with the log on the wire-level EventStoreDB test server, beside
 * PostgreSQL's: a check of the async path over EventStoreDB's protocol, not EventStoreDB's speed.
 */
async function onEventStoreTestServer(url: string): Promise<Row[]> {
  const wire = await startEsdbWire();
  const label = "the log on the EventStoreDB wire-level test server (in memory): a check of the async path, not EventStoreDB's speed";
  let store: EventStoreDbStore | null = null;
  try {
    store = EventStoreDbStore.connect(wire.url);
    // A quarter of PostgreSQL's rate: the test server answers in the bench's own process, beside the projectors.
    return [...(await asyncLag(url, 250, { store, label })), await reactorLagOnEventStore(url, wire.url, label)];
  } finally {
    await store?.close();
    await wire.close();
  }
}

/**
 * A command row as a share of the bare express + pg insert at its client count (16's beyond 16);
 * the keep row also as a share of the bare keeps at its own client count.
 */
function withBareRatio(commands: readonly Row[], measured: readonly Row[]): Row[] {
  const keepShares = [
    [BARE_HTTP_KEEP, 'the bare keep'],
    [BARE_HTTP_KEEP_AFTER_TOKEN, 'the bare keep after a token check'],
  ] as const;
  return commands.map((r) => {
    if (r.section !== 'commands' || r.clients === undefined) return r;
    const clients = r.clients;
    let row = withShareOf(r, barePerSecond(measured, BARE_HTTP_INSERT, clients > 1 ? 16 : 1), 'bare HTTP');
    if (r.name === KEEP_ROW) for (const [name, of] of keepShares) row = withShareOf(row, barePerSecond(measured, name, clients), of);
    return row;
  });
}

/**
 * The bare floor and keeps as a share of the organization token's floor of one instance at their
 * client count, when the run measured it (`commands`: the one-instance rows).
 */
function withFloorShare(rows: readonly Row[], commands: readonly Row[]): Row[] {
  const bare = new Set([BARE_HTTP_FLOOR, BARE_HTTP_KEEP, BARE_HTTP_KEEP_AFTER_TOKEN]);
  const floorAt = (clients: number | undefined) => commands.find((f) => f.name === FLOOR_ORG_ROW && f.clients === clients)?.perSecond;
  return rows.map((r) =>
    r.section === 'limits' && bare.has(r.name) ? withShareOf(r, floorAt(r.clients), 'the organization token floor') : r,
  );
}

/** The embedded default has no server to compare with: its own figures only. */
async function embedded(): Promise<Row[]> {
  const rows: Row[] = [];
  const runs = [
    (db: SqlDb) => benchAppends(db, { seconds, writers: [1, 8] }),
    (db: SqlDb) => benchPublish(db, { seconds, clients: [1, 16] }),
    (db: SqlDb) => benchAsyncLag(db, { rate: 200, seconds }),
    (db: SqlDb) => benchReplay(db, 100_000),
  ];
  for (const run of runs) {
    const db = await PgliteDb.open();
    try {
      rows.push(...(await run(db)).map((r) => ({ ...r, note: `pglite; ${r.note ?? ''}` })));
    } finally {
      await db.close();
    }
  }
  return rows;
}

async function machineLimits(
  url: string | undefined,
): Promise<{ summary: string; cpus: number; memoryGiB: number; node: string; postgres: string | null }> {
  const cpus = os.cpus().length;
  const memoryGiB = Math.round(os.totalmem() / 2 ** 30);
  const postgres = url ? ((await adminQuery(url, 'SHOW server_version')) ?? null) : null;
  const model = os.cpus()[0]?.model ?? 'unknown';
  const pgVersion = postgres ?? '(embedded only)';
  const summary = `machine: ${cpus} cores (${model}), ${memoryGiB} GiB, node ${process.version}, PostgreSQL ${pgVersion}`;
  return { summary, cpus, memoryGiB, node: process.version, postgres };
}

main().catch((e: unknown) => {
  if (e instanceof BenchSelectionError) process.stderr.write(`bench: ${e.message}\n`);
  else process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
