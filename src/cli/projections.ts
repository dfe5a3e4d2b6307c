/**
 * npm run projections -- status | skip <projector> <position> --reason "..." [--by name]:
 * where each projector stands, and moving a stalled one past the one event it cannot apply
 * (recorded in the log). Safe while the service runs on PostgreSQL; on the embedded default it
 * refuses while another process holds DATA_DIR (contract §10.12).
 */
import { openBackends } from '../backends.js';
import { loadConfig } from '../config.js';
import { allProjectors } from '../projections/index.js';
import { parseProjectionsArgs, runProjectionsCommand, USAGE } from './projections-command.js';
import { UsageError } from './usage.js';

async function main(): Promise<void> {
  const command = parseProjectionsArgs(process.argv.slice(2));
  if (command.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
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
