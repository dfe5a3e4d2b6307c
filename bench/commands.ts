/**
 * The service's commands over real HTTP, under autocannon, against the real service (one or two
 * `node src/main.ts` processes) on a scratch PostgreSQL database. Every connection works on
 * records of its own, so each call does real work: a new document version, a new kept copy, a
 * new correction, another proposal adopted. After each run the log is counted to check it.
 */
import pg from 'pg';
import { generateMasterKey, generatePrivateJwk, serializeJwkSet } from '../src/identity/keys/index.js';
import { benchOrganization, PerConnection } from './command-data.js';
import { CpuMeter, cpuNote } from './cpu-spent.js';
import {
  commandWorkloads,
  floorWorkloads,
  identityWorkloads,
  type BenchWorld,
  type TokenKind,
  type Workload,
} from './command-workloads.js';
import { readLog, type LoggedEvent } from './domain-log.js';
import { benchDrain } from './drain.js';
import { instanceChecks } from './instance-checks.js';
import { runLoad, type LoadResult } from './load.js';
import { startMailSink } from './mail-sink.js';
import { WARM_UP_CLIENTS, withShareOf, type Row } from './measure.js';
import { reactorLag } from './reactor-lag.js';
import type { BenchWorkload } from './selection.js';
import { withScratchDatabase } from './scratch-database.js';
import { queriesSent, ServiceClient } from './service-client.js';
import { startService, type ServiceProcess } from './service-process.js';

export type CommandBenchOptions = {
  readonly databaseUrl: string;
  readonly redisUrl?: string;
  readonly seconds: number;
  readonly clients: readonly number[];
  readonly instances?: 1 | 2;
  /** Only these workloads (BENCH_WORKLOADS), and no reactor lag; every one, and the lag, by default. */
  readonly workloads?: ReadonlySet<BenchWorkload>;
};

/** Identity figures are taken at this many connections whatever `clients` says. */
const IDENTITY_CLIENTS = 16;
/** Requests of a trial run, spread over its connections (at least TRIAL_MIN each). */
const TRIAL_REQUESTS = 200;
const TRIAL_MIN = 10;
/**
 * Records prepared per connection: the trial's rate times the run's length, times this. Records
 * are not cheap: the service opens proposals one reaction job at a time.
 */
const HEADROOM = 1.5;
const QUIET_TIMEOUT_MS = 15 * 60_000;

type Context = {
  readonly urls: readonly string[];
  /** One client per instance, to see whether its reactions are done. */
  readonly instances: readonly ServiceClient[];
  /** The instances' node processes, whose CPU time each run reads. */
  readonly pids: readonly number[];
  readonly seconds: number;
  readonly db: pg.Client;
  /** Said on every row: "2 instances". */
  readonly label: string | null;
};

export async function benchCommands(options: CommandBenchOptions): Promise<Row[]> {
  const instances = options.instances ?? 1;
  return withScratch(options.databaseUrl, async (databaseUrl, db) => {
    const services = await startInstances(databaseUrl, instances, options.redisUrl);
    try {
      // After every instance started: an instance counts only sign-ins made after its own start.
      const world = await worldOf(services.clients[0]!);
      const ctx: Context = {
        urls: services.processes.map((s) => s.url),
        instances: services.clients,
        pids: services.processes.map((s) => s.pid),
        seconds: options.seconds,
        db,
        label: instances === 2 ? '2 instances' : null,
      };
      const rows: Row[] = [];
      const chosen = (w: Workload) => options.workloads?.has(w.key) ?? true;
      // The floors first: each command row then says its share of the floor of its kind of token at its client count.
      const floors = new Map<string, number>();
      for (const w of [...floorWorkloads(world), ...commandWorkloads(world)].filter(chosen)) {
        await warmUp(ctx, w);
        for (const clients of options.clients) {
          const row = await measure(ctx, w, clients);
          if (w.floor && w.token && row.perSecond !== undefined) floors.set(`${w.token}@${clients}`, row.perSecond);
          rows.push(w.floor || !w.token ? row : withFloorRatio(row, w.token, floors.get(`${w.token}@${clients}`)));
        }
      }
      if (options.workloads?.has('drain') ?? true) {
        const drains = {
          api: world.api,
          db,
          pids: ctx.pids,
          instances: ctx.instances,
          label: ctx.label,
          untilQuiet: () => untilQuiet(ctx),
        };
        await benchDrain(drains, WARM_UP_CLIENTS); // as warmUp: V8 compiles the drain's path before its rows
        for (const clients of options.clients) {
          rows.push(withFloorRatio(await benchDrain(drains, clients), 'organization', floors.get(`organization@${clients}`)));
        }
      }
      for (const w of identityWorkloads(world).filter(chosen)) {
        await warmUp(ctx, w);
        rows.push(await measure(ctx, w, IDENTITY_CLIENTS));
      }
      if (!options.workloads) rows.push(await reactorLag(world, ctx.label, () => untilQuiet(ctx)));
      if (instances === 2) rows.push(...(await instanceChecks(world, services.clients, db)));
      rows.push(...(await memoryRows(services.processes, ctx.label)));
      return rows;
    } finally {
      await services.stop();
    }
  });
}

/** A command row's share of its floor (issue 48's target: ≥ 40% at 16 clients). */
function withFloorRatio(row: Row, token: TokenKind, floor: number | undefined): Row {
  return withShareOf(row, floor, `the ${token} token floor`);
}

/** The organization under load, and a person for each connection as the workloads ask: what they share. */
async function worldOf(api: ServiceClient): Promise<BenchWorld> {
  return { api, org: await benchOrganization(api), people: new PerConnection(() => api.person()) };
}

/**
 * The reactor lag alone, on a service whose log is the EventStoreDB at `eventstoreUrl` (read
 * models, checkpoints and queue on a scratch database of `serverUrl`), said on the row as `label`.
 */
export async function reactorLagOnEventStore(serverUrl: string, eventstoreUrl: string, label: string): Promise<Row> {
  return withScratch(serverUrl, async (databaseUrl) => {
    const services = await startInstances(databaseUrl, 1, undefined, { EVENTSTORE_URL: eventstoreUrl });
    try {
      return await reactorLag(await worldOf(services.clients[0]!), label, () => untilQuiet({ instances: services.clients }));
    } finally {
      await services.stop();
    }
  });
}

/**
 * The log of a scenario of every workload that writes, for the replay row to replicate: one service
 * on a scratch database, its organization, then `requests` calls of each workload on each of
 * `clients` connections, the log read once every reaction is done.
 */
export async function recordScenario(serverUrl: string, options: { clients: number; requests: number }): Promise<LoggedEvent[]> {
  return withScratch(serverUrl, async (databaseUrl, db) => {
    const services = await startInstances(databaseUrl, 1, undefined);
    try {
      const world = await worldOf(services.clients[0]!);
      const urls = services.processes.map((p) => p.url);
      for (const w of [...commandWorkloads(world), ...identityWorkloads(world)].filter((w) => w.event !== null)) {
        const scripts = await w.scripts(options.clients, options.requests);
        const run = await runLoad({ urls, scripts, seconds: QUIET_TIMEOUT_MS / 1000, perConnection: options.requests });
        if (run.errors > 0) throw new Error(`recording the scenario: ${w.name} answered ${run.failures}`);
        await untilQuiet({ instances: services.clients, db });
      }
      return await readLog(db);
    } finally {
      await services.stop();
    }
  });
}

/**
 * A run's load at `clients`: a trial measures the rate; a workload that uses up records then gets
 * enough for a run at that rate with headroom.
 */
async function prepare(ctx: Context, w: Workload, clients: number): Promise<Parameters<typeof runLoad>[0]> {
  const trialRequests = Math.max(TRIAL_MIN, Math.ceil(TRIAL_REQUESTS / clients));
  const trialScripts = await w.scripts(clients, trialRequests);
  await untilQuiet(ctx);
  const trial = await runLoad({ urls: ctx.urls, scripts: trialScripts, seconds: ctx.seconds, perConnection: trialRequests });
  const perConnection = w.consumes ? Math.ceil((trial.perSecond / clients) * ctx.seconds * HEADROOM) + TRIAL_MIN : undefined;
  const scripts = await w.scripts(clients, perConnection ?? 0);
  return { urls: ctx.urls, scripts, seconds: ctx.seconds, ...(perConnection ? { perConnection } : {}) };
}

/**
 * A workload's first run, not counted: a run's length at WARM_UP_CLIENTS, so that its rows measure
 * the service as it runs all day, with V8's optimized code for the workload's path, not while V8
 * compiles it. Cold, a row's first seconds run the path's functions unoptimized while V8's compiler
 * threads take a fifth of the service's CPU (docs/decisions.md, "Tooling").
 * The bare HTTP line gets the same warm-up (limits.ts).
 */
async function warmUp(ctx: Context, w: Workload): Promise<void> {
  await runLoad(await prepare(ctx, w, WARM_UP_CLIENTS));
  await untilQuiet(ctx);
  await settled(ctx, w);
}

/** After its trial, a run of the workload at `clients`, checked against the log. */
async function measure(ctx: Context, w: Workload, clients: number): Promise<Row> {
  const setupStarted = performance.now();
  const load = await prepare(ctx, w, clients);
  const before = await settled(ctx, w);
  await untilQuiet(ctx);
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  const queriesBefore = await queriesSent(ctx.instances);
  const cpu = await CpuMeter.start(ctx.pids);
  const run = await runLoad(load);
  const ended = performance.now();
  // Before the workload settles: its reads of where each connection stands would count as the run's.
  await untilQuiet(ctx);
  const drained = (performance.now() - ended) / 1000;
  const queries = (await queriesSent(ctx.instances)) - queriesBefore;
  const spent = await cpu.spent();
  const written = w.event ? (await settled(ctx, w)) - before : null;
  progress(`${w.name} at ${clients} clients: ${Math.round(run.perSecond)}/s (setup and trial ${Math.round(setupSeconds)} s)`);
  return {
    section: w.section,
    name: w.name,
    clients,
    count: run.responses,
    perSecond: run.perSecond,
    p50ms: run.p50ms,
    p99ms: run.p99ms,
    errors: run.errors,
    note: [
      ctx.label,
      run.failures || null,
      checkNote(w, run, written),
      queriesNote(queries, run),
      cpuNote(spent, run.responses, 'service'),
      exhaustedNote(run, clients),
      drainedNote(drained),
    ]
      .filter((n) => n !== null)
      .join('; '),
  };
}

/**
 * Each 2xx answer must have appended exactly one event of the workload's type. Requests still in
 * flight when autocannon stopped were done by the service without their answer being counted, so
 * the log may hold up to that many more.
 */
function checkNote(w: Workload, run: LoadResult, written: number | null): string | null {
  if (written === null || w.event === null) return null;
  const inFlight = run.sent - run.responses;
  if (written >= run.ok && written <= run.ok + inFlight) {
    const extra = written - run.ok;
    return `${w.event} ×${written} = 2xx${extra > 0 ? ` + ${extra} in flight at the stop` : ''}`;
  }
  return `CHECK FAILED: ${written} ${w.event} for ${run.ok} 2xx (${inFlight} in flight at the stop)`;
}

/**
 * The queries the service sent PostgreSQL per request answered, reactions and background work
 * included: a command's cost in queries, which its throughput follows (docs/decisions.md, "Event store").
 */
function queriesNote(queries: number, run: LoadResult): string | null {
  return run.responses > 0 ? `${(queries / run.responses).toFixed(1)} queries a request` : null;
}

/** A command whose reactions (copy workers) trail it: how long they took to catch up after the run. */
function drainedNote(seconds: number): string | null {
  return seconds >= 2 ? `its reactions finished ${Math.round(seconds)} s after the run` : null;
}

function exhaustedNote(run: LoadResult, clients: number): string | null {
  return run.exhausted > 0 ? `${run.exhausted} of ${clients} connections ran out of prepared records` : null;
}

/**
 * Once the requests in flight at the end of a run have finished writing (the workload's events
 * stop growing), the workload brings its state in line: answers its events so far (0 for a read).
 */
async function settled(ctx: Context, w: Workload): Promise<number> {
  const count = w.event ? await settledCount(ctx.db, w.event) : 0;
  await w.settle?.();
  return count;
}

/**
 * Waits until no instance has a reaction job waiting or running and every read model and reactor
 * following the log has caught up with it, twice in a row (a reactor may be about to queue one),
 * so a run does not pay for the reactions of the one before, nor of its own setup (the consent
 * receipts of the requests it accepted), and its count of queries is its own.
 */
async function untilQuiet(ctx: Pick<Context, 'instances'> & { readonly db?: pg.Client }): Promise<void> {
  const started = performance.now();
  const quiet = async () => {
    const gauges = await Promise.all(ctx.instances.map((i) => i.gauges()));
    if (gauges.some((g) => g.queuedJobs > 0 || g.projectionLagSeconds > 0)) return false;
    return !ctx.db || (await reactorsAtHead(ctx.db));
  };
  for (let quietReads = 0; quietReads < 2;) {
    quietReads = (await quiet()) ? quietReads + 1 : 0;
    if (performance.now() - started > QUIET_TIMEOUT_MS) throw new Error(`reactions still queued after ${QUIET_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Whether every reactor's checkpoint is at the log's last event. One with nothing to do moves its
 * checkpoint within a second or so (SKIP_PERSIST_MS, reactor-runner.ts), so this comes true soon after the log stops.
 */
async function reactorsAtHead(db: pg.Client): Promise<boolean> {
  const behind = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM reactors.checkpoints c,
       (SELECT transaction_id::text::numeric AS commit_pos, position AS prepare_pos FROM es.events
        ORDER BY transaction_id DESC, position DESC LIMIT 1) head
     WHERE (c.commit_pos, c.prepare_pos) < (head.commit_pos, head.prepare_pos)`,
  );
  return behind.rows[0]!.n === '0';
}

/** Events of a type, read until they stop growing. */
async function settledCount(db: pg.Client, type: string): Promise<number> {
  const read = async () =>
    Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM es.events WHERE type = $1', [type])).rows[0]!.n);
  let last = await read();
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await read();
    if (now === last) return now;
    last = now;
  }
  return last;
}

/** A line on stderr per measurement: the whole bench takes minutes, most of it preparing records. */
function progress(line: string): void {
  process.stderr.write(`bench commands: ${line}\n`);
}

async function memoryRows(processes: readonly ServiceProcess[], label: string | null): Promise<Row[]> {
  return Promise.all(
    processes.map(async (p, i) => ({
      section: 'memory' as const,
      name: processes.length > 1 ? `service peak RSS, instance ${i + 1} (MB)` : 'service peak RSS (MB)',
      count: Math.round((await p.peakRssBytes()) / 2 ** 20),
      note: [label, 'VmHWM of the node process after all runs'].filter((n) => n !== null).join('; '),
    })),
  );
}

type Instances = { readonly processes: ServiceProcess[]; readonly clients: ServiceClient[]; stop(): Promise<void> };

/**
 * Instances of one deployment share the signing key, the master key, the public base URL (the
 * token issuer and the schema URLs) and, here, one mailbox.
 */
async function startInstances(
  databaseUrl: string,
  count: number,
  redisUrl: string | undefined,
  extra: Record<string, string> = {},
): Promise<Instances> {
  const mail = await startMailSink();
  const env = {
    ...extra,
    BASE_URL: 'http://dss.bench',
    JWT_PRIVATE_KEY: serializeJwkSet([await generatePrivateJwk()]),
    MASTER_KEY: generateMasterKey().toString('base64'),
  };
  const processes: ServiceProcess[] = [];
  const stop = async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await mail.close();
  };
  try {
    // One after the other: the first creates the schemas and read models, the second finds them.
    for (let i = 0; i < count; i++) processes.push(await startService({ databaseUrl, env, mail, ...(redisUrl ? { redisUrl } : {}) }));
  } catch (e) {
    await stop();
    throw e;
  }
  return { processes, clients: processes.map((p) => new ServiceClient(p.url, mail)), stop };
}

/** The scratch database, with a connection of the bench's own to count events and rows in it. */
async function withScratch<T>(serverUrl: string, fn: (url: string, db: pg.Client) => Promise<T>): Promise<T> {
  return withScratchDatabase(serverUrl, 'dss_bench_cmd', async (url) => {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      return await fn(url, db);
    } finally {
      await db.end();
    }
  });
}
