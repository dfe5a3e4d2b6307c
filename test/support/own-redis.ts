import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { freePort } from './own-cluster.js';

/** The machine's redis-server, or null where there is none (a fresh machine). */
export function redisServerBin(): string | null {
  return ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p)) ?? null;
}

/** A redis-server of a test's own, on its own port, keeping nothing on disk; it can go away and come back. */
export type OwnRedis = { readonly url: string; stop(): Promise<void>; start(): Promise<void> };

export async function startOwnRedis(bin: string): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    // Started again while it runs, a second server could not bind the port and would exit at once,
    // leaving `child` pointing at it and the running one out of stop()'s reach for good.
    if (child && child.exitCode === null && child.signalCode === null) return;
    child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await untilListening(port);
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, start, stop };
}

async function untilListening(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not listen on ${port}`);
}
