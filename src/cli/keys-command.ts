import { generateMasterKey, generatePrivateJwk, KeyProblem, rotateJwkSet, serializeJwkSet } from '../identity/keys/index.js';
import { asksForHelp } from './usage.js';

export type KeysIo = {
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** The current key set when it is not in the environment; null when stdin is a terminal. */
  readonly readStdin: () => Promise<string | null>;
};
export type KeysOutcome = { readonly stdout: string; readonly stderr: string; readonly exitCode: 0 | 1 };

// The values are JSON and base64 (no single quotes), so single-quoting is enough for any POSIX shell.
const exportLine = (name: string, value: string): string => `export ${name}='${value}'\n`;
const failed = (message: string): KeysOutcome => ({ stdout: '', stderr: `keys failed: ${message}\n`, exitCode: 1 });

const USAGE = [
  'usage: npm run -s keys',
  '         prints a fresh JWT_PRIVATE_KEY and MASTER_KEY as shell lines: eval "$(npm run -s keys)"',
  '       npm run -s keys -- --rotate',
  '         prints the current JWK set (JWT_PRIVATE_KEY or stdin) with a new signing key in front',
].join('\n');

/**
 * Fresh keys, or (--rotate) the current JWK set with a new signing key in front. A private key is
 * never taken from the command line: every user of the machine sees argv in `ps`.
 */
export async function keysCommand(io: KeysIo): Promise<KeysOutcome> {
  if (asksForHelp(io.argv)) return { stdout: `${USAGE}\n`, stderr: '', exitCode: 0 };
  const [flag, ...rest] = io.argv;
  if (flag === undefined) {
    return {
      stdout:
        exportLine('JWT_PRIVATE_KEY', serializeJwkSet([await generatePrivateJwk()])) +
        exportLine('MASTER_KEY', generateMasterKey().toString('base64')),
      stderr: '',
      exitCode: 0,
    };
  }
  if (flag.startsWith('--rotate=') || (flag === '--rotate' && rest.length > 0)) {
    return failed(
      '--rotate takes no value: a key on the command line is visible to every user in `ps`; give it in JWT_PRIVATE_KEY or on stdin',
    );
  }
  if (flag !== '--rotate') return failed(USAGE);
  const current = io.env.JWT_PRIVATE_KEY?.trim() || (await io.readStdin())?.trim();
  if (!current) return failed('--rotate needs the current key set in JWT_PRIVATE_KEY or on stdin');
  try {
    const keys = await rotateJwkSet(current);
    return {
      stdout: exportLine('JWT_PRIVATE_KEY', serializeJwkSet(keys)),
      stderr: `new signing key ${keys[0]?.kid}; still verifying ${keys
        .slice(1)
        .map((k) => k.kid)
        .join(', ')}. MASTER_KEY unchanged.\n`,
      exitCode: 0,
    };
  } catch (e) {
    if (e instanceof KeyProblem) return failed(`--rotate: ${e.message}`);
    throw e;
  }
}
