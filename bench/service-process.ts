import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_V8_FLAGS } from '../src/v8-tuning.js';
import { startMailSink, type MailSink } from './mail-sink.js';

export type ServiceProcess = {
  readonly url: string;
  /** The node process running src/main.ts itself (no shell or npx in between). */
  readonly pid: number;
  /** Where the service's mail goes: the bench reads login codes here. */
  readonly mail: MailSink;
  /** The process's peak resident set (VmHWM) so far. */
  peakRssBytes(): Promise<number>;
  /** The process's resident set (VmRSS) now. */
  rssBytes(): Promise<number>;
  stop(): Promise<void>;
};

export type ServiceOptions = {
  /** Null: the embedded PGlite, in a data directory of the process's own. */
  readonly databaseUrl: string | null;
  readonly redisUrl?: string;
  /** Extra settings; they win over the bench's own. */
  readonly env?: Record<string, string>;
  /** A mailbox to share (several instances); by default the service gets its own, closed on stop. */
  readonly mail?: MailSink;
};

const REPO = fileURLToPath(new URL('..', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

/**
 * The bench logs in thousands of people from one client address and sends one organization's
 * invitations far faster than anyone would: the per-client and per-organization limits would turn
 * most of that into 429s. The per-address limit (3 codes an hour) stays: every address is new.
 * The embedded bench's in-process app (publish.ts) runs with the same.
 */
export const UNLIMITED: Readonly<Record<string, string>> = {
  OTP_SENDS_PER_CLIENT_PER_HOUR: '1000000000',
  OTP_FAILURES_PER_CLIENT_PER_HOUR: '1000000000',
  INVITES_PER_MEMBER_PER_DAY: '1000000000',
  INVITES_PER_ORG_PER_DAY: '1000000000',
  INVITES_PER_RECIPIENT_PER_DAY: '1000000000',
  RATE_LIMIT_TOKEN_PER_SECOND: '1000000000',
  RATE_LIMIT_TOKEN_BURST: '1000000000',
  RATE_LIMIT_ORG_PER_SECOND: '1000000000',
  RATE_LIMIT_ORG_BURST: '1000000000',
};

/** Only what node needs from the bench's environment: a DATABASE_URL or REDIS_URL of the shell must not leak into the service. */
const INHERITED = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];

/** The real service as it is deployed: `node <its V8 flags> --import tsx src/main.ts` (npm start), configured by environment only. */
export async function startService(options: ServiceOptions): Promise<ServiceProcess> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'dss-bench-service-'));
  const mail = options.mail ?? (await startMailSink());
  const env: Record<string, string> = {
    ...inherited(),
    PORT: String(port),
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
    SMTP_URL: mail.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ...UNLIMITED,
    ...options.env,
  };
  const child = spawn(process.execPath, [...profileArgs(), ...SERVICE_V8_FLAGS, '--import', 'tsx', 'src/main.ts'], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = tail(child);
  // A bench that dies half-way (process.exit on an error) must not leave services running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const cleanUp = async () => {
    process.off('exit', killOnExit);
    if (!options.mail) await mail.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await untilHealthy(url, child, output);
  } catch (e) {
    await stopProcess(child);
    await cleanUp();
    throw e;
  }
  return {
    url,
    pid: child.pid!,
    mail,
    peakRssBytes: () => statusBytes(child.pid!, 'VmHWM'),
    rssBytes: () => statusBytes(child.pid!, 'VmRSS'),
    async stop() {
      await stopProcess(child);
      await cleanUp();
    },
  };
}

function inherited(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of INHERITED) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return env;
}

/**
 * The service logs its port (PORT=0 works) at info level only, and the bench runs it at warn so
 * its request logs do not cost it throughput: the bench picks the free port itself.
 */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The last few kilobytes the process wrote, to say why it failed. */
function tail(child: ChildProcess): () => string {
  let text = '';
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString('utf8')).slice(-8192);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text;
}

/** /healthz answers once the service listens, which it does after its schema, projections and workers started. */
async function untilHealthy(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the service exited (${child.exitCode ?? child.signalCode}) before it answered:\n${output()}`);
    }
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the service did not answer /healthz within ${START_TIMEOUT_MS} ms:\n${output()}`);
}

/** SIGTERM drains it (main.ts); one that hangs past its own deadline is killed. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** A memory figure of /proc/<pid>/status, which gives it in kB. */
async function statusBytes(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1];
  if (kb === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb) * 1024;
}

/** BENCH_CPU_PROF=<dir>: each service child writes a V8 CPU profile there when it stops (docs/performance.md, "Reproduce"). */
function profileArgs(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}
