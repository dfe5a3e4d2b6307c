/**
 * npm run projections -- status | skip <projector> <position> --reason "..." [--by name]:
 * where each projector stands, and moving a stalled one past the one event it cannot apply
 * (recorded in the log). Safe while the service runs on PostgreSQL; on the embedded default stop
 * the service first (one process at a time may open a PGlite data directory).
 */
import { openBackends } from '../backends.js';
import { loadConfig } from '../config.js';
import { allProjectors } from '../projections/index.js';
import { parseProjectionsArgs, runProjectionsCommand, UsageError } from './projections-command.js';

async function main(): Promise<void> {
  const command = parseProjectionsArgs(process.argv.slice(2));
  const config = loadConfig();
  const backends = await openBackends(config);
  try {
    process.stdout.write(
      `${await runProjectionsCommand({ db: backends.db, store: backends.store, projectors: allProjectors }, command)}\n`,
    );
  } finally {
    await backends.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`projections: ${e instanceof Error ? e.message : String(e)}\n`);
  // 2: the command line was wrong; 1: refused (SkipRefusedError, ConfigError) or failed.
  process.exit(e instanceof UsageError ? 2 : 1);
});
