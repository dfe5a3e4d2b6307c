/**
 * The soak (issue 16): the real service under mixed traffic at a steady rate for minutes, its
 * memory and latency sampled each window. `npm run soak` (bench/soak-run.ts) runs it; the CI test
 * runs three short windows. README "Soak" says how to read the table.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { benchOrganization, PerConnection } from './command-data.js';
import type { BenchWorld } from './command-workloads.js';
import { pacedWindows, Schedule, type Lane, type PacedWindow, type Send } from './paced-load.js';
import { withScratchDatabase } from './scratch-database.js';
import { RssSamples } from './rss-samples.js';
import { StealSamples } from './cpu-steal.js';
import { ServiceClient } from './service-client.js';
import { startService } from './service-process.js';
import { soakMix } from './soak-mix.js';

export type SoakOptions = {
  /** A PostgreSQL server (the soak makes a scratch database on it), or null for the embedded PGlite. */
  readonly databaseUrl: string | null;
  readonly redisUrl?: string;
  /** Requests a second, on a fixed schedule whatever the answers (paced-load.ts). */
  readonly rate: number;
  readonly windows: number;
  readonly windowSeconds: number;
  /** Each window as it ends; lines of progress while records are prepared. */
  readonly onWindow?: (w: SoakWindow) => void;
  readonly onProgress?: (line: string) => void;
};

export type SoakWindow = PacedWindow & {
  /** The service's resident set (VmRSS): the median of the window's samples, one a second (rss-samples.ts). */
  readonly rssMb: number;
  readonly rssMinMb: number;
  readonly rssMaxMb: number;
  /** Reaction jobs waiting or running at the window's end: a backlog that grows is a service falling behind. */
  readonly queuedJobs: number;
  /**
   * The longest the service's event loop and the load generator's were late in the window: a
   * stall in both is the machine's, in the service's alone its own work, in neither a wait on I/O.
   */
  readonly serviceLoopMaxMs: number;
  readonly benchLoopMaxMs: number;
  /** CPU time the hypervisor gave other guests in the window, in percent of this machine's (cpu-steal.ts); null off Linux. */
  readonly stealPercent: number | null;
};

export async function runSoak(options: SoakOptions): Promise<SoakWindow[]> {
  return onBackend(options.databaseUrl, async (databaseUrl) => {
    const service = await startService({ databaseUrl, ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}) });
    try {
      const api = new ServiceClient(service.url, service.mail);
      const world: BenchWorld = { api, org: await benchOrganization(api), people: new PerConnection(() => api.person()) };
      const mix = soakMix(world);
      const shares = mix.map((t) => t.share);
      const schedule = new Schedule(shares, { rate: options.rate, windows: options.windows, windowSeconds: options.windowSeconds });
      const started = performance.now();
      const lanes: Lane[] = [];
      // One lane after the other: two lanes' setups creating documents in one person's vault would clash.
      for (const [i, t] of mix.entries()) {
        lanes.push({ name: t.name, scripts: await t.source.scripts(schedule.streams(i), schedule.perStream(i)) });
      }
      options.onProgress?.(`records for ${schedule.total} requests prepared in ${Math.round((performance.now() - started) / 1000)} s`);
      const send: Send = (call) => api.send(call.method, call.path, { token: call.token, body: call.body });
      const windows: SoakWindow[] = [];
      const rss = new RssSamples(() => service.rssBytes());
      const benchLoop = monitorEventLoopDelay({ resolution: 10 });
      benchLoop.enable();
      // From here the service's loop delay and the host's steal count for the first window, not the setup's.
      await api.gauges();
      const steal = await StealSamples.start();
      try {
        for await (const figures of pacedWindows(schedule, lanes, send)) {
          const { medianMb, minMb, maxMb } = await rss.window();
          const { queuedJobs, eventLoopDelayMaxMs } = await api.gauges();
          const window: SoakWindow = {
            ...figures,
            rssMb: medianMb,
            rssMinMb: minMb,
            rssMaxMb: maxMb,
            queuedJobs,
            serviceLoopMaxMs: eventLoopDelayMaxMs,
            benchLoopMaxMs: benchLoop.max / 1e6,
            stealPercent: await steal.window(),
          };
          benchLoop.reset();
          windows.push(window);
          options.onWindow?.(window);
        }
      } finally {
        rss.stop();
        benchLoop.disable();
      }
      return windows;
    } finally {
      await service.stop();
    }
  });
}

function onBackend<T>(serverUrl: string | null, fn: (databaseUrl: string | null) => Promise<T>): Promise<T> {
  return serverUrl ? withScratchDatabase(serverUrl, 'dss_soak', fn) : fn(null);
}
