/**
 * npm run rotate-master-key: re-wraps every vault data key from OLD_MASTER_KEY to MASTER_KEY.
 * The data itself (events, read models, files) is untouched: it is sealed with the data keys.
 * Idempotent and resumable; run it with the new MASTER_KEY configured, then drop the old one.
 * On the embedded default it refuses while another process holds DATA_DIR (contract §10.12).
 */
import { parseMasterKey } from '../identity/keys/master-key.js';
import { openBackends } from '../backends.js';
import { ConfigError, loadConfig } from '../config.js';
import { VaultKeyring } from '../vaults/keyring.js';
import { noArguments, UsageError } from './usage.js';

const USAGE = [
  'usage: npm run rotate-master-key',
  '         re-wraps every vault data key from OLD_MASTER_KEY to MASTER_KEY (both from the environment);',
  '         idempotent: run it again after an interruption',
].join('\n');

async function main(): Promise<void> {
  if (noArguments(process.argv.slice(2), USAGE) === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = loadConfig();
  const oldText = process.env.OLD_MASTER_KEY?.trim();
  if (!config.masterKey || !oldText) throw new ConfigError(['set MASTER_KEY (the new key) and OLD_MASTER_KEY (the key it replaces)']);
  const [next, previous] = [parseMasterKey(config.masterKey), parseMasterKey(oldText)];
  const backends = await openBackends(config);
  try {
    const keyring = await VaultKeyring.open(backends.db, next);
    const count = await keyring.rewrapFrom(previous);
    process.stdout.write(`re-wrapped ${count} vault keys under the new MASTER_KEY\n`);
  } finally {
    await backends.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`rotation failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(e instanceof UsageError ? 2 : 1);
});
