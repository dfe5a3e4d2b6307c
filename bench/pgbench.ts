import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Row } from './measure.js';

const run = promisify(execFile);

/**
 * The machine's limit for what an append is at bottom: pgbench committing one event-sized row per
 * transaction, against the same server, in a scratch database of its own.
 */
export async function benchPgbench(
  databaseUrl: string,
  scratch: string,
  options: { seconds: number; clients: readonly number[] },
): Promise<Row[]> {
  const url = new URL(databaseUrl);
  const dir = await mkdtemp(join(tmpdir(), 'dss-pgbench-'));
  const script = join(dir, 'insert.sql');
  const data = JSON.stringify({ note: 'x'.repeat(240) });
  await writeFile(script, `INSERT INTO bench_rows (stream, data) VALUES ('s-' || :client_id, '${data}');\n`);
  const connection = ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username) || 'postgres', scratch];
  const env = { ...process.env, ...(url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {}) };
  try {
    await run(
      'psql',
      [...connection, '-qc', 'CREATE TABLE bench_rows (id bigserial PRIMARY KEY, stream text NOT NULL, data jsonb NOT NULL)'],
      { env },
    );
    const rows: Row[] = [];
    for (const clients of options.clients) {
      const threads = String(Math.min(clients, 2));
      const { stdout } = await run(
        'pgbench',
        ['-n', '-f', script, '-c', String(clients), '-j', threads, '-T', String(options.seconds), ...connection],
        {
          env,
        },
      );
      const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? NaN);
      const latency = Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1] ?? NaN);
      rows.push({
        section: 'limits',
        name: 'pgbench one-row insert per transaction',
        clients,
        perSecond: tps,
        note: `latency avg ${latency} ms`,
      });
    }
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
