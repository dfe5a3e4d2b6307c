/**
 * npm run soak: SOAK_MINUTES windows (default 10) of SOAK_WINDOW_SECONDS (default 60) at SOAK_RATE
 * requests/s (default 100; 30 embedded) against the real service, on a scratch database of
 * DATABASE_URL's server, else on the embedded PGlite. Prints a row per window as it ends; writes
 * bench/soak-results.json, then prints the verdicts (even when the file could not be written), and
 * exits 1 when a verdict fails.
 */
import os from 'node:os';
import { writeResults } from './results-file.js';
import { runSoak } from './soak.js';
import { tableHeader, tableRow, verdictLines, verdicts } from './soak-report.js';

function setting(name: string, fallback: number, min: number): number {
  const text = process.env[name];
  const value = text === undefined || text === '' ? fallback : Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer of at least ${min} (got "${text}")`);
  return value;
}

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL || null;
  const redisUrl = process.env.REDIS_URL;
  const settings = {
    // PGlite serves one statement at a time: at 100/s its queue grows from the first window (40/s held).
    rate: setting('SOAK_RATE', databaseUrl ? 100 : 30, 1),
    // Window 2 is the reference (the first warms up), so a third is the least that can be compared with it.
    windows: setting('SOAK_MINUTES', 10, 3),
    windowSeconds: setting('SOAK_WINDOW_SECONDS', 60, 1),
  };
  const backend = databaseUrl ? `PostgreSQL (a scratch database on ${new URL(databaseUrl).host})` : 'the embedded PGlite';
  const machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', node: process.version };
  process.stdout.write(
    `soak: ${settings.rate} requests/s for ${settings.windows} windows of ${settings.windowSeconds} s on ${backend}` +
      `${redisUrl ? ', jobs on Redis' : ''}; ${machine.cpus} cores (${machine.model}), node ${machine.node}\n`,
  );
  let headed = false;
  const windows = await runSoak({
    databaseUrl,
    ...(redisUrl ? { redisUrl } : {}),
    ...settings,
    onProgress: (line) => process.stderr.write(`soak: ${line}\n`),
    onWindow: (w) => {
      if (!headed) process.stdout.write(`\n${tableHeader()}\n`);
      headed = true;
      process.stdout.write(`${tableRow(w)}\n`);
    },
  });
  const judged = verdicts(windows);
  const results = { at: new Date().toISOString(), machine, backend, settings, windows, verdicts: judged };
  try {
    await writeResults(new URL('./soak-results.json', import.meta.url), results);
  } finally {
    // A quarter of an hour of load is not lost with the file: its verdicts still reach the screen.
    process.stdout.write(`\n${verdictLines(judged)}\n`);
  }
  if (judged.some((v) => !v.ok)) process.exit(1);
}

main().catch((e: unknown) => {
  process.stderr.write(`soak failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
