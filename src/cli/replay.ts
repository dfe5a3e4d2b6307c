/**
 * npm run replay: rebuilds every read model from the event log into fresh tables and swaps them
 * in atomically. With --until and --schema, builds them as of a point of the log into a schema of
 * their own instead, for looking back (docs/debugging.md); the live ones stay as they are.
 * Safe while the service runs on PostgreSQL; on the embedded default it refuses while another
 * process holds DATA_DIR (contract §10.12).
 */
import { openBackends, type Backends } from '../backends.js';
import { ConfigError, loadConfig } from '../config.js';
import { describeCut } from '../projections/log-cut.js';
import { allProjectors } from '../projections/index.js';
import { replay } from '../projections/replay.js';
import { timeTravel, TimeTravelRefusedError } from '../projections/time-travel.js';
import { progressPrinter } from './progress-bar.js';
import { UsageError } from './usage.js';
import { describeTimeTravel, parseReplayArgs, REPLAY_USAGE, type ReplayCommand } from './replay-command.js';

async function main(): Promise<void> {
  const command = parseReplayArgs(process.argv.slice(2));
  if (command.kind === 'help') {
    process.stdout.write(`${REPLAY_USAGE}\n`);
    return;
  }
  const backends = await openBackends(loadConfig());
  try {
    process.stdout.write(`${await run(backends, command)}\n`);
  } finally {
    await backends.close();
  }
}

async function run(backends: Backends, command: Exclude<ReplayCommand, { kind: 'help' }>): Promise<string> {
  const { db, store } = backends;
  const onProgress = progressPrinter(process.stderr);
  const endProgress = () => process.stderr.isTTY && process.stderr.write('\n');
  if (command.kind === 'time-travel') {
    const { until, schema } = command;
    process.stderr.write(`building ${allProjectors.length} read models as of ${describeCut(until)} into schema ${schema}\n`);
    const report = await timeTravel({ db, store, projectors: allProjectors, until, target: schema, onProgress });
    endProgress();
    return describeTimeTravel(report, until, schema, allProjectors.length);
  }
  process.stderr.write(`replaying ${allProjectors.length} read models from ${store.kind} into ${db.kind}\n`);
  const report = await replay({ db, store, projectors: allProjectors, onProgress });
  endProgress();
  return (
    `replayed ${report.events.toLocaleString('en-US')} events into ${allProjectors.length} read models in ` +
    `${(report.elapsedMs / 1000).toFixed(1)} s (${report.eventsPerSecond.toLocaleString('en-US')} events/s); swapped in`
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`replay failed: ${e instanceof ConfigError || e instanceof Error ? e.message : String(e)}\n`);
  // 2: the command line was wrong, or named a schema or position a time travel refuses; 1: failed.
  process.exit(e instanceof UsageError || e instanceof TimeTravelRefusedError ? 2 : 1);
});
