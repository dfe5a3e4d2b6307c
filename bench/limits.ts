/**
 * The machine's limits, measured in the same run and against the same PostgreSQL as everything
 * else: what one event-sized row per transaction costs at bottom (pgbench, no client library), what
 * the least HTTP write service on our stack (express + pg) makes of it, the least an authenticated
 * read (the bare floor) and the least a keep can be there, alone and after the bare floor's token
 * and session check. Every other figure of the bench reads as a share of these.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { startScript } from './child-process.js';
import { CpuMeter, cpuNote } from './cpu-spent.js';
import { percentile, WARM_UP_CLIENTS, withShareOf, type Row } from './measure.js';
import { adminQuery, withScratchDatabase } from './scratch-database.js';

export const PGBENCH_INSERT = 'pgbench one-row insert';
export const BARE_HTTP_INSERT = 'bare express + pg insert (HTTP)';
export const BARE_HTTP_FLOOR = 'bare express + pg floor: token, session, one row (HTTP)';
export const BARE_HTTP_KEEP = 'bare express + pg keep (HTTP)';
export const BARE_HTTP_KEEP_AFTER_TOKEN = 'bare express + pg keep after a token check (HTTP)';

const PGBENCH_CLIENTS = [1, 8, 16];
const HTTP_CLIENTS = [1, 16];
/** The bare floor and keeps: the commands' target is set at 16 clients. */
const TARGET_CLIENTS = [16];
const SERVER_START_MS = 30_000;
/** node-postgres's own default pool size: what a plain server that sets nothing gets. */
const BARE_SERVER_POOL = 10;

/**
 * An event-sized row (~300 bytes of JSON, like the bench's events). Only string values: in a
 * pgbench script `:name` is a variable, so a literal may hold no colon before a letter or digit.
 */
const EVENT_ROW = { stream: 'bench', type: 'BenchHappened', note: 'x'.repeat(240) };

const run = promisify(execFile);

export async function benchLimits(databaseUrl: string, options: { seconds: number }): Promise<Row[]> {
  return withScratchDatabase(databaseUrl, 'dss_bench_limits', async (url) => [
    ...(await pgbenchInserts(url, options.seconds)),
    ...(await bareHttpRows(url, options.seconds)),
  ]);
}

/** A bare line (BARE_HTTP_INSERT, BARE_HTTP_KEEP) at `clients` connections, for a row's "% of bare". */
export function barePerSecond(rows: readonly Row[], name: string, clients: number): number | undefined {
  return rows.find((r) => r.section === 'limits' && r.name === name && r.clients === clients)?.perSecond;
}

/** pgbench committing one event-sized INSERT per transaction, at each client count. */
async function pgbenchInserts(url: string, seconds: number): Promise<Row[]> {
  await adminQuery(url, 'CREATE TABLE pgbench_events (id bigserial PRIMARY KEY, stream text NOT NULL, data jsonb NOT NULL)');
  const dir = await mkdtemp(join(tmpdir(), 'dss-bench-pgbench-'));
  try {
    const script = join(dir, 'insert.sql');
    const json = JSON.stringify(EVENT_ROW);
    if (/:\w/.test(json)) throw new Error('the pgbench row would hold a pgbench variable');
    await writeFile(script, `INSERT INTO pgbench_events (stream, data) VALUES ('bench-' || :client_id, '${json}');\n`);
    const rows: Row[] = [];
    for (const clients of PGBENCH_CLIENTS) rows.push(await pgbenchRun(url, script, await mkdtemp(join(dir, 'log-')), clients, seconds));
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * One pgbench run. Its summary gives tps and the average latency; its per-transaction log
 * (--log, one file per thread) gives the percentiles the summary lacks.
 */
async function pgbenchRun(url: string, script: string, logDir: string, clients: number, seconds: number): Promise<Row> {
  // Two threads at most: the machine has two cores, and pgbench's threads compete with the server.
  const threads = Math.min(clients, 2);
  const args = ['-n', '-f', script, '-c', String(clients), '-j', String(threads), '-T', String(seconds)];
  const { stdout } = await run('pgbench', [...args, '--log', `--log-prefix=${join(logDir, 'tx')}`, ...connectionArgs(url)], {
    env: pgEnv(url),
  });
  const latencies = await pgbenchLatencies(logDir);
  const average = summaryNumber(stdout, /latency average = ([\d.]+) ms/);
  return {
    section: 'limits',
    name: PGBENCH_INSERT,
    clients,
    count: summaryNumber(stdout, /number of transactions actually processed: (\d+)/),
    perSecond: summaryNumber(stdout, /tps = ([\d.]+)/),
    p50ms: percentile(latencies, 50),
    p99ms: percentile(latencies, 99),
    // pgbench before 15 counts no failures: it stops at the first.
    errors: Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0),
    note: `pgbench -j ${threads}; latency avg ${average.toFixed(3)} ms`,
  };
}

function summaryNumber(stdout: string, pattern: RegExp): number {
  const match = pattern.exec(stdout)?.[1];
  if (match === undefined) throw new Error(`pgbench printed no ${String(pattern)}:\n${stdout}`);
  return Number(match);
}

/** Milliseconds per transaction from one run's logs: the third field of each line is the latency in µs. */
async function pgbenchLatencies(logDir: string): Promise<number[]> {
  const texts = await Promise.all((await readdir(logDir)).map((f) => readFile(join(logDir, f), 'utf8')));
  return texts.flatMap((text) =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => Number(line.split(' ')[2]) / 1000),
  );
}

/** pgbench takes the connection as options, not as a URL. */
function connectionArgs(url: string): string[] {
  const u = new URL(url);
  const user = decodeURIComponent(u.username) || 'postgres';
  return ['-h', u.hostname, '-p', u.port || '5432', '-U', user, decodeURIComponent(u.pathname.slice(1))];
}

function pgEnv(url: string): NodeJS.ProcessEnv {
  const password = decodeURIComponent(new URL(url).password);
  return { ...process.env, ...(password ? { PGPASSWORD: password } : {}) };
}

type BareRequest = Pick<autocannon.Options, 'url' | 'method' | 'headers' | 'body'>;

/**
 * The bare express + pg server (bench/bare-server.ts) in its own process, loaded by autocannon:
 * its insert at each client count, then its floor, its keep, and its keep after the floor's token
 * and session check, whose share of the bare floor is the ceiling of a keep's share of its floor.
 */
async function bareHttpRows(url: string, seconds: number): Promise<Row[]> {
  const server = startScript('bench/bare-server.ts', { DATABASE_URL: url, POOL_SIZE: String(BARE_SERVER_POOL) });
  try {
    const { port, session, token } = JSON.parse(await server.firstLine(SERVER_START_MS)) as {
      port: number;
      session: string;
      token: string;
    };
    const member = { authorization: `Bearer ${token}` };
    const floor: BareRequest = { url: `http://127.0.0.1:${port}/floor`, method: 'GET', headers: member };
    const insert: BareRequest = {
      url: `http://127.0.0.1:${port}/events`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(EVENT_ROW),
    };
    const keep: BareRequest = { url: `http://127.0.0.1:${port}/keep`, method: 'POST', headers: { authorization: `Bearer ${session}` } };
    const keepAfterToken: BareRequest = { url: `http://127.0.0.1:${port}/keep-after-token`, method: 'POST', headers: member };
    const rows: Row[] = [];
    for (const [name, request, clientCounts] of [
      [BARE_HTTP_INSERT, insert, HTTP_CLIENTS],
      [BARE_HTTP_FLOOR, floor, TARGET_CLIENTS],
      [BARE_HTTP_KEEP, keep, TARGET_CLIENTS],
      [BARE_HTTP_KEEP_AFTER_TOKEN, keepAfterToken, TARGET_CLIENTS],
    ] as const) {
      // Its code paths compiled and its pool full before it is measured, as the service's are.
      await autocannon({ ...request, connections: WARM_UP_CLIENTS, duration: seconds });
      for (const clients of clientCounts) rows.push(await httpRun(name, request, clients, seconds, server.pid));
    }
    return rows.map((r) =>
      r.name === BARE_HTTP_KEEP_AFTER_TOKEN ? withShareOf(r, barePerSecond(rows, BARE_HTTP_FLOOR, r.clients ?? 0), 'the bare floor') : r,
    );
  } finally {
    await server.stop();
  }
}

/**
 * One autocannon run. Per second counts only the 2xx answers: a fast 500 is no insert. The
 * percentiles come from each answer's own time: autocannon's histogram keeps whole milliseconds,
 * which would read a 0.9 ms insert as 0 or 1.
 */
async function httpRun(name: string, request: BareRequest, clients: number, seconds: number, pid: number): Promise<Row> {
  const latencies: number[] = [];
  const cpu = await CpuMeter.start([pid]);
  const result = await autocannon({
    ...request,
    connections: clients,
    duration: seconds,
    // A 100 ms sample tick: autocannon notices the end only at a tick, 1 s by default.
    sampleInt: 100,
    setupClient: (client) => {
      client.on('response', (status, _bytes, ms) => {
        if (status >= 200 && status < 300) latencies.push(ms);
      });
    },
  });
  return {
    section: 'limits',
    name,
    clients,
    count: result['2xx'],
    perSecond: result['2xx'] / result.duration,
    p50ms: percentile(latencies, 50),
    p99ms: percentile(latencies, 99),
    errors: result.errors + result.non2xx,
    note: [`pg pool ${BARE_SERVER_POOL} (node-postgres default)`, cpuNote(await cpu.spent(), result['2xx'], 'server')]
      .filter((n) => n !== null)
      .join('; '),
  };
}
