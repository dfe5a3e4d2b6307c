/**
 * npm run verify-log: walks the whole event log and checks every hash link and every log
 * checkpoint (docs/audit.md). Exit 0 when intact, 1 at the first broken link (printed), or on
 * failure. Read-only, so safe while the service runs on PostgreSQL; on the embedded default stop
 * the service first (one process at a time may open a PGlite data directory).
 */
import { openBackends } from '../backends.js';
import { loadConfig } from '../config.js';
import { progressPrinter } from './progress-bar.js';
import { describeVerification, verifyLog } from './verify-log-command.js';

async function main(): Promise<void> {
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
  process.exit(1);
});
