import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** A bench script running in a node process of its own. */
export type BenchChild = {
  readonly pid: number;
  /** The first line it prints on stdout (a server's port); rejects if it exits or stays silent first. */
  firstLine(timeoutMs: number): Promise<string>;
  /** Everything it printed on stdout, once it exits with 0; rejects with its stderr otherwise. */
  finished(timeoutMs: number): Promise<string>;
  /** SIGTERM, then SIGKILL if it has not exited within a few seconds. */
  stop(): Promise<void>;
};

const REPO = fileURLToPath(new URL('..', import.meta.url));
const KILL_AFTER_MS = 10_000;
/** Only what node needs: a DATABASE_URL of the shell must not reach a child that is given its own. */
const INHERITED = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];

/**
 * Starts `node --import tsx <script>` from the repository root, as the service itself is run (no
 * npx or shell in between, so the pid is the process that does the work). Its stdin stays an open
 * pipe: the script calls exitWithParent() and goes when the bench goes.
 */
export function startScript(script: string, env: Readonly<Record<string, string>>): BenchChild {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: REPO,
    env: { ...inherited(), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  // Only the tail: enough to say why it failed.
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-8192)));
  // A process that could not start rejects `once`: it has exited all the same, and the stderr says why.
  const exited = once(child, 'close').then(
    () => undefined,
    (e: unknown) => void (stderr += String(e)),
  );
  const failure = (what: string) => new Error(`${script} ${what} (exit ${child.exitCode ?? child.signalCode}):\n${stderr}`);
  return {
    pid: child.pid!,
    firstLine: (timeoutMs) =>
      within(
        timeoutMs,
        child,
        () => failure(`printed nothing within ${timeoutMs} ms`),
        (resolve, reject) => {
          const check = () => {
            const end = stdout.indexOf('\n');
            if (end !== -1) resolve(stdout.slice(0, end));
          };
          child.stdout.on('data', check);
          check();
          void exited.then(() => reject(failure('exited before it printed a line')));
        },
      ),
    finished: (timeoutMs) =>
      within(
        timeoutMs,
        child,
        () => failure(`did not finish within ${timeoutMs} ms`),
        (resolve, reject) => {
          void exited.then(() => (child.exitCode === 0 ? resolve(stdout) : reject(failure('failed'))));
        },
      ),
    stop: () => stopChild(child, exited),
  };
}

/** A promise that a child process settles, killing the child if it takes longer than `timeoutMs`. */
function within<T>(
  timeoutMs: number,
  child: ChildProcess,
  timeoutError: () => Error,
  body: (resolve: (value: T) => void, reject: (error: Error) => void) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(timeoutError());
    }, timeoutMs);
    body(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
  await exited;
  clearTimeout(timer);
}

function inherited(): Record<string, string> {
  return Object.fromEntries(INHERITED.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]]])));
}

/**
 * In the child: runs `shutdown` and exits on SIGTERM, or when the bench that started it goes (its
 * stdin pipe closes), so a bench that crashed or was killed leaves no process behind.
 */
export function exitWithParent(shutdown: () => Promise<void>): void {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    shutdown().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
  // Listening to the pipe must not keep a child that is done with its work alive.
  process.stdin.unref();
}
