import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The server binaries of the machine's PostgreSQL, or null where there are none (a fresh machine). */
export function postgresBin(): string | null {
  for (const version of ['17', '16', '15']) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, 'initdb'))) return dir;
  }
  return null;
}

/** A throwaway PostgreSQL cluster of a test's own: initdb in a temp dir, its own port, trust auth. */
export type OwnCluster = {
  readonly url: (database: string) => string;
  readonly bin: string;
  /** The server goes away (a fast shutdown: sessions are cut) and comes back on the same port and data. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
};

/** PostgreSQL refuses to run as root: the cluster belongs to the `postgres` user when the tests run as root. */
const asPostgres = (bin: string, args: readonly string[]) =>
  process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', bin, ...args]) : run(bin, [...args]);

export async function startOwnCluster(bin: string): Promise<OwnCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'dss-cluster-'));
  await chmod(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  await asPostgres(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const start = () =>
    asPostgres(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-w',
      '-l',
      join(dir, 'log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  await start();
  return {
    bin,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    pause: async () => void (await asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'])),
    resume: async () => void (await start()),
    stop: async () => {
      await asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
