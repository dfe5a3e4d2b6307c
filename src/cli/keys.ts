/**
 * npm run keys: prints fresh production keys as shell lines,
 *   eval "$(npm run -s keys)"
 * JWT_PRIVATE_KEY=... npm run -s keys -- --rotate (or the set on stdin): prints the set with a new
 * signing key in front of the old ones. Tokens of the old keys keep verifying until they expire;
 * drop the old keys from the set after the longest session (72 h). MASTER_KEY is not rotated here:
 * it wraps stored secrets.
 */
import { text } from 'node:stream/consumers';
import { dataDirOf } from '../config.js';
import { refuseWhileInUse } from '../data-dir.js';
import { keysCommand } from './keys-command.js';
import { asksForHelp } from './usage.js';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // Contract §10.12 names keys among the tools that refuse a DATA_DIR another process holds.
  if (!asksForHelp(argv)) await refuseWhileInUse(dataDirOf());
  const outcome = await keysCommand({
    argv,
    env: process.env,
    readStdin: async () => (process.stdin.isTTY ? null : text(process.stdin)),
  });
  process.stdout.write(outcome.stdout);
  process.stderr.write(outcome.stderr);
  process.exitCode = outcome.exitCode;
}

main().catch((e: unknown) => {
  process.stderr.write(`keys failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
