/**
 * The soak (issue 16): the real service under mixed traffic at a steady rate for minutes, its
 * memory and latency sampled each window. `npm run soak` (bench/soak-run.ts) runs it; the CI test
 * runs three short windows. README "Soak" says how to read the table.
 */
import { readFile } from 'node:fs/promises';
import { generateMasterKey, generatePrivateJwk, serializeJwkSet } from '../src/identity/keys/index.js';
import { benchOrganization, PerConnection, SLOTS } from './command-data.js';
import { commandWorkloads, identityWorkloads, type BenchWorld } from './command-workloads.js';
import type { Script } from './load.js';
import { startMailSink } from './mail-sink.js';
import { percentile } from './measure.js';
import { withScratchDatabase } from './scratch-database.js';
import { ServiceClient } from './service-client.js';
import { startService, type ServiceProcess } from './service-process.js';

export type SoakOptions = {
  readonly databaseUrl: string;
  /** Requests per second, paced: one every 1/rate s whatever the answers, so latency is measured below saturation. */
  readonly rate: number;
  readonly windows: number;
  readonly windowSeconds: number;
  /** A line per window as it ends. */
  readonly onWindow?: (w: SoakWindow) => void;
};

export type SoakWindow = {
  readonly window: number;
  readonly requests: number;
  readonly perSecond: number;
  readonly p50ms: number;
  readonly p99ms: number;
  readonly maxMs: number;
  readonly errors: number;
  readonly rssMb: number;
};

export type SoakVerdict = { readonly what: string; readonly ok: boolean; readonly detail: string };

/** The traffic's mix: each kind's share of the requests. */
const MIX: ReadonlyArray<{ readonly kind: 'publish' | 'keep' | 'correct' | 'token check'; readonly share: number }> = [
  { kind: 'publish', share: 0.4 },
  { kind: 'correct', share: 0.25 },
  { kind: 'token check', share: 0.25 },
  { kind: 'keep', share: 0.1 },
];
/** Connections per kind: each sends one request at a time, so no two of its records clash. */
const CONNECTIONS = 8;

export async function runSoak(options: SoakOptions): Promise<SoakWindow[]> {
  return withScratchDatabase(options.databaseUrl, 'dss_soak', async (databaseUrl) => {
    const mail = await startMailSink();
    const env = {
      BASE_URL: 'http://dss.soak',
      JWT_PRIVATE_KEY: serializeJwkSet([await generatePrivateJwk()]),
      MASTER_KEY: generateMasterKey().toString('base64'),
      LOG_LEVEL: 'warn',
    };
    const service = await startService({ databaseUrl, env, mail });
    try {
      const api = new ServiceClient(service.url, mail);
      const org = await benchOrganization(api);
      const world: BenchWorld = { api, org, people: new PerConnection(() => api.person()) };
      const pools = await scriptPools(world, options);
      return await paced(api, service, pools, options);
    } finally {
      await service.stop();
      await mail.close();
    }
  });
}

/** Each kind's connections, its keeps prepared for the whole run (a keep uses up a record). */
async function scriptPools(world: BenchWorld, options: SoakOptions): Promise<Map<string, Script[]>> {
  const [publish, keep, correct] = commandWorkloads(world);
  const [, tokenChecks] = identityWorkloads(world);
  const seconds = options.windows * options.windowSeconds;
  const keeps = Math.ceil((options.rate * seconds * MIX.find((m) => m.kind === 'keep')!.share) / CONNECTIONS);
  return new Map([
    ['publish', await publish!.scripts(CONNECTIONS, 0)],
    ['keep', await keep!.scripts(CONNECTIONS, Math.ceil(keeps / SLOTS) * SLOTS)],
    ['correct', await correct!.scripts(CONNECTIONS, 0)],
    ['token check', await tokenChecks!.scripts(CONNECTIONS, 0)],
  ]);
}

/** Sends at the rate for every window, a kind by the mix and an idle connection of it each time. */
async function paced(
  api: ServiceClient,
  service: ServiceProcess,
  pools: Map<string, Script[]>,
  options: SoakOptions,
): Promise<SoakWindow[]> {
  const idle = new Map([...pools].map(([kind, scripts]) => [kind, [...scripts]]));
  const windows: SoakWindow[] = [];
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let sent = 0;
  for (let w = 1; w <= options.windows; w++) {
    const latencies: number[] = [];
    let errors = 0;
    let skipped = 0;
    const end = started + w * options.windowSeconds * 1000;
    for (;;) {
      const due = started + (sent * 1000) / options.rate;
      if (due >= end) break;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const kind = kindOf(sent++);
      const script = idle.get(kind)!.pop();
      // Every connection of the kind still waits for its answer: the service is behind; count it.
      if (!script) {
        skipped++;
        continue;
      }
      const request = (async () => {
        const call = script.next();
        const t0 = performance.now();
        try {
          const { status, text } = await api.send(call.method, call.path, {
            ...(call.token ? { token: call.token } : {}),
            body: call.body,
          });
          latencies.push(performance.now() - t0);
          if (status < 200 || status > 299) errors++;
          script.answered?.(status, text);
        } catch {
          errors++;
        } finally {
          idle.get(kind)!.push(script);
        }
      })();
      inFlight.add(request);
      void request.finally(() => inFlight.delete(request));
    }
    await Promise.all(inFlight);
    const window: SoakWindow = {
      window: w,
      requests: latencies.length,
      perSecond: latencies.length / options.windowSeconds,
      p50ms: percentile(latencies, 50),
      p99ms: percentile(latencies, 99),
      maxMs: Math.max(0, ...latencies),
      errors: errors + skipped,
      rssMb: await rssMb(service.pid),
    };
    windows.push(window);
    options.onWindow?.(window);
  }
  return windows;
}

/** The kind of the n-th request: the mix spread evenly over every run of 20 requests. */
function kindOf(n: number): string {
  const slot = (n % 20) / 20;
  let upTo = 0;
  for (const m of MIX) {
    upTo += m.share;
    if (slot < upTo) return m.kind;
  }
  return MIX[MIX.length - 1]!.kind;
}

async function rssMb(pid: number): Promise<number> {
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb === undefined ? 0 : Math.round(Number(kb) / 1024);
}

/** The bar: no error; the last window's RSS within 10% and p99 within 20% of the second's. */
export function verdicts(windows: readonly SoakWindow[]): SoakVerdict[] {
  const total = windows.reduce((n, w) => n + w.errors, 0);
  const second = windows[1];
  const last = windows[windows.length - 1];
  if (!second || !last) return [{ what: 'windows', ok: false, detail: 'the soak needs at least two windows' }];
  const within = (a: number, b: number, share: number) => Math.abs(a - b) <= share * b;
  return [
    { what: 'no error', ok: total === 0, detail: `${total} errors` },
    {
      what: 'RSS at the last window within 10% of the second',
      ok: within(last.rssMb, second.rssMb, 0.1),
      detail: `${second.rssMb} MB → ${last.rssMb} MB`,
    },
    {
      what: 'p99 at the last window within 20% of the second',
      ok: within(last.p99ms, second.p99ms, 0.2),
      detail: `${second.p99ms.toFixed(1)} ms → ${last.p99ms.toFixed(1)} ms`,
    },
  ];
}

export function soakTable(windows: readonly SoakWindow[]): string {
  const head = '| window | requests | per second | p50 ms | p99 ms | max ms | errors | RSS MB |\n|--:|--:|--:|--:|--:|--:|--:|--:|';
  const ms = (n: number) => n.toFixed(1);
  const rows = windows.map(
    (w) =>
      `| ${w.window} | ${w.requests} | ${ms(w.perSecond)} | ${ms(w.p50ms)} | ${ms(w.p99ms)} | ${ms(w.maxMs)} | ${w.errors} | ${w.rssMb} |`,
  );
  return [head, ...rows].join('\n');
}
