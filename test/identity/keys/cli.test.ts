import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { loadKeys, type PrivateJwk } from '../../../src/identity/keys/index.js';

type Run = { code: number | null; stdout: string; stderr: string };

/** The real CLI in its own process, with the given environment additions and stdin. */
function keysCliWith(args: string[], options: { env?: Record<string, string>; stdin?: string } = {}): Promise<Run> {
  const { JWT_PRIVATE_KEY: _, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/keys.ts', ...args], {
    cwd: process.cwd(),
    env: { ...env, ...options.env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
async function keysCli(...args: string[]): Promise<Run> {
  const r = await keysCliWith(args);
  if (r.code !== 0) throw Object.assign(new Error(r.stderr), r);
  return r;
}

function exports(stdout: string): Map<string, string> {
  const lines = stdout.trim().split('\n');
  return new Map(
    lines.map((line) => {
      const match = /^export ([A-Z_]+)='([^']*)'$/.exec(line);
      if (!match?.[1] || match[2] === undefined) throw new Error(`not an export line: ${line}`);
      return [match[1], match[2]];
    }),
  );
}
const kids = (set: string): string[] => (JSON.parse(set) as { keys: PrivateJwk[] }).keys.map((key) => key.kid);

describe('npm run keys', () => {
  it('prints a JWT_PRIVATE_KEY set of one key and a MASTER_KEY that load as production keys', async () => {
    const printed = exports((await keysCli()).stdout);
    expect([...printed.keys()]).to.deep.equal(['JWT_PRIVATE_KEY', 'MASTER_KEY']);
    const jwt = printed.get('JWT_PRIVATE_KEY') ?? '';
    expect(kids(jwt)).to.have.length(1);
    const keys = await loadKeys({
      production: true,
      dataDir: '/nonexistent',
      jwtPrivateKey: jwt,
      masterKey: printed.get('MASTER_KEY') ?? '',
    });
    expect(keys.signing.kid).to.equal(kids(jwt)[0]);
  });

  it('--rotate takes the current set from JWT_PRIVATE_KEY or stdin and prints it with a new first key, and no MASTER_KEY', async () => {
    const original = exports((await keysCli()).stdout).get('JWT_PRIVATE_KEY') ?? '';
    const once = exports((await keysCliWith(['--rotate'], { env: { JWT_PRIVATE_KEY: original } })).stdout);
    expect([...once.keys()]).to.deep.equal(['JWT_PRIVATE_KEY']);
    const rotated = once.get('JWT_PRIVATE_KEY') ?? '';
    expect(kids(rotated)).to.have.length(2);
    expect(kids(rotated).slice(1)).to.deep.equal(kids(original));
    const twice = exports((await keysCliWith(['--rotate'], { stdin: rotated })).stdout).get('JWT_PRIVATE_KEY') ?? '';
    expect(kids(twice).slice(1)).to.deep.equal(kids(rotated));
  });

  it('--rotate refuses a key on the command line (every user sees argv in ps), printing nothing to evaluate', async () => {
    const original = exports((await keysCli()).stdout).get('JWT_PRIVATE_KEY') ?? '';
    for (const args of [['--rotate', original], [`--rotate=${original}`]]) {
      const r = await keysCliWith(args);
      expect(r.code).to.equal(1);
      expect(r.stdout).to.equal('');
      expect(r.stderr).to.match(/takes no value.*ps.*JWT_PRIVATE_KEY or on stdin/);
    }
    const none = await keysCliWith(['--rotate']);
    expect(none.code).to.equal(1);
    expect(none.stderr).to.match(/needs the current key set/);
  });

  it('--rotate refuses a set that is not Ed25519, printing nothing to evaluate', async () => {
    const r = await keysCliWith(['--rotate'], { stdin: '{"kty":"RSA","n":"x","e":"AQAB"}' });
    expect(r.code).to.equal(1);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.match(/--rotate: .*only OKP Ed25519/);
  });
});
