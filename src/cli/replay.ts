/**
 * npm run replay: rebuilds every read model from the event log into fresh tables and swaps them
 * in atomically. Safe while the service runs on PostgreSQL; on the embedded default stop the
 * service first (one process at a time may open a PGlite data directory).
 */
import { openBackends } from '../backends.js';
import { ConfigError, loadConfig } from '../config.js';
import { allProjectors } from '../projections/index.js';
import { replay } from '../projections/replay.js';
import { progressPrinter } from './progress-bar.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const backends = await openBackends(config);
  try {
    process.stderr.write(`replaying ${allProjectors.length} read models from ${backends.store.kind} into ${backends.db.kind}\n`);
    const report = await replay({
      db: backends.db,
      store: backends.store,
      projectors: allProjectors,
      onProgress: progressPrinter(process.stderr),
    });
    if (process.stderr.isTTY) process.stderr.write('\n');
    process.stdout.write(
      `replayed ${report.events.toLocaleString('en-US')} events into ${allProjectors.length} read models in ` +
        `${(report.elapsedMs / 1000).toFixed(1)} s (${report.eventsPerSecond.toLocaleString('en-US')} events/s); swapped in\n`,
    );
  } finally {
    await backends.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`replay failed: ${e instanceof ConfigError || e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
