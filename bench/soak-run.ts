/**
 * npm run soak: SOAK_MINUTES windows (default 10) of SOAK_WINDOW_SECONDS (default 60) at SOAK_RATE
 * requests/s (default 100) against the real service on a scratch database of DATABASE_URL's
 * server. Prints a row per window as it ends, then the table and the verdicts, writes
 * bench/soak-results.json, and exits 1 when a verdict fails.
 */
import { writeFile } from 'node:fs/promises';
import { runSoak, soakTable, verdicts } from './soak.js';

const number = (name: string, fallback: number): number => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} must be a positive number`);
  return v;
};

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('the soak runs the service on PostgreSQL: set DATABASE_URL (a scratch database is made on its server)');
  const options = { rate: number('SOAK_RATE', 100), windows: number('SOAK_MINUTES', 10), windowSeconds: number('SOAK_WINDOW_SECONDS', 60) };
  process.stderr.write(`soak: ${options.windows} windows of ${options.windowSeconds} s at ${options.rate} requests/s\n`);
  const windows = await runSoak({
    databaseUrl,
    ...options,
    onWindow: (w) =>
      process.stderr.write(
        `soak: window ${w.window}: ${w.requests} requests, p99 ${w.p99ms.toFixed(1)} ms, ${w.errors} errors, RSS ${w.rssMb} MB\n`,
      ),
  });
  const judged = verdicts(windows);
  process.stdout.write(`${soakTable(windows)}\n\n${judged.map((v) => `${v.ok ? 'ok  ' : 'FAIL'} ${v.what}: ${v.detail}`).join('\n')}\n`);
  await writeFile(new URL('./soak-results.json', import.meta.url), `${JSON.stringify({ options, windows, verdicts: judged }, null, 2)}\n`);
  if (judged.some((v) => !v.ok)) process.exit(1);
}

main().catch((e: unknown) => {
  process.stderr.write(`soak failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
