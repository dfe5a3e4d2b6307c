/**
 * npm run verify-log: walks the whole event log and checks every hash link and every log
 * checkpoint (docs/audit.md). Exit 0 when intact, 1 at the first broken link (printed), or on
 * failure. Read-only, so safe while the service runs on PostgreSQL; on the embedded default it
 * refuses while another process holds DATA_DIR (contract §10.12).
 */
import { openBackends } from '../backends.js';
import { loadConfig } from '../config.js';
import { progressPrinter } from './progress-bar.js';
import { noArguments, UsageError } from './usage.js';
import { describeVerification, verifyLog } from './verify-log-command.js';

const USAGE = [
  'usage: npm run verify-log',
  '         walks the whole event log and checks every hash link and log checkpoint;',
  '         exit 0 when intact, 1 at the first broken link (printed)',
].join('\n');

async function main(): Promise<void> {
  if (noArguments(process.argv.slice(2), USAGE) === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const backends = await openBackends(loadConfig());
  try {
    process.stderr.write(`verifying the ${backends.store.kind} event log\n`);
    const verification = await verifyLog(backends, progressPrinter(process.stderr));
    if (process.stderr.isTTY) process.stderr.write('\n');
    process.stdout.write(`${describeVerification(verification)}\n`);
    process.exitCode = verification.firstBreak ? 1 : 0;
  } finally {
    await backends.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`verify-log failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(e instanceof UsageError ? 2 : 1);
});
