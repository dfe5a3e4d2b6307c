import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { SERVICE_V8_FLAGS } from '../../../src/v8-tuning.js';

/**
 * The service and its command-line tools as an operator runs them: processes of their own on the
 * embedded default (PGlite in DATA_DIR), configured by the environment alone.
 */

export const REPO = fileURLToPath(new URL('../../..', import.meta.url));

export type Outcome = { readonly code: number; readonly stdout: string; readonly stderr: string };

/** Only what node needs from this process's environment: a DATABASE_URL of the shell must not make the child leave the embedded default. */
export function embeddedEnv(settings: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ']) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return { ...env, ...settings };
}

/** `npm run -s <script> -- <args>`, to its exit. */
export function npmRun(script: string, args: readonly string[], env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    execFile('npm', ['run', '-s', script, '--', ...args], { cwd: REPO, env }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(new Error(`${script}: ${error.message}\n${stderr}`));
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** One JSON log line of the service. */
export type LogLine = Record<string, unknown> & { readonly level: number; readonly msg: string };

/** `npm start` as the service runs it: node with its V8 flags on src/main.ts. */
export class ServiceProcess {
  readonly lines: LogLine[] = [];
  private stderrText = '';
  readonly exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      try {
        this.lines.push(JSON.parse(l) as LogLine);
      } catch {
        /* not a log line */
      }
    });
    child.stderr!.on('data', (d: Buffer) => {
      this.stderrText += d.toString();
    });
    this.exited = once(child, 'exit').then(([code]) => code as number | null);
  }

  static spawn(env: Record<string, string>): ServiceProcess {
    const child = spawn(process.execPath, [...SERVICE_V8_FLAGS, '--import', 'tsx', 'src/main.ts'], {
      cwd: REPO,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServiceProcess(child);
  }

  /** Started and listening: the service's `listening` line. */
  static async start(env: Record<string, string>): Promise<ServiceProcess> {
    const service = ServiceProcess.spawn(env);
    const outcome = await service.listeningOrExit();
    if (outcome !== 'listening') throw new Error(`the service exited (${outcome}) before it listened:\n${service.stderr()}`);
    return service;
  }

  get pid(): number {
    return this.child.pid!;
  }

  stderr(): string {
    return this.stderrText;
  }

  get url(): string {
    const port = this.lines.find((l) => l.msg.startsWith('listening'))?.port;
    if (typeof port !== 'number') throw new Error('the service has not logged its port');
    return `http://127.0.0.1:${port}`;
  }

  /** Whichever comes first: the `listening` line, or the process's exit code. */
  async listeningOrExit(): Promise<'listening' | number | null> {
    for (;;) {
      if (this.lines.some((l) => l.msg.startsWith('listening'))) return 'listening';
      if (this.child.exitCode !== null || this.child.signalCode !== null) return this.exited;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGTERM: the service drains and exits. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }

  /** SIGKILL: no shutdown of its own, as a crash or an OOM kill. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }
}
