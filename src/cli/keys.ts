/**
 * npm run keys: prints fresh production keys as shell lines,
 *   eval "$(npm run -s keys)"
 * npm run keys -- --rotate "$JWT_PRIVATE_KEY": prints the set with a new signing key in front of
 * the old ones. Tokens of the old keys keep verifying until they expire; drop the old keys from the
 * set after the longest session (72 h). MASTER_KEY is not rotated here: it wraps stored secrets.
 */
import { parseArgs } from 'node:util';
import { generateMasterKey, generatePrivateJwk, KeyProblem, rotateJwkSet, serializeJwkSet } from '../auth/keys/index.js';

// The values are JSON and base64 (no single quotes), so single-quoting is enough for any POSIX shell.
const exportLine = (name: string, value: string): string => `export ${name}='${value}'\n`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rotate: { type: 'string' } }, strict: true, allowPositionals: false });
  if (values.rotate !== undefined) {
    const keys = await rotateJwkSet(values.rotate);
    process.stdout.write(exportLine('JWT_PRIVATE_KEY', serializeJwkSet(keys)));
    process.stderr.write(`new signing key ${keys[0]?.kid}; still verifying ${keys.slice(1).map((k) => k.kid).join(', ')}. MASTER_KEY unchanged.\n`);
    return;
  }
  process.stdout.write(exportLine('JWT_PRIVATE_KEY', serializeJwkSet([await generatePrivateJwk()])));
  process.stdout.write(exportLine('MASTER_KEY', generateMasterKey().toString('base64')));
}

main().catch((e: unknown) => {
  const message = e instanceof KeyProblem ? `--rotate: ${e.message}` : e instanceof Error ? e.message : String(e);
  process.stderr.write(`keys failed: ${message}\n`);
  process.exit(1);
});
