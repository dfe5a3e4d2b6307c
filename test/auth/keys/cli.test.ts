import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { loadKeys, type PrivateJwk } from '../../../src/auth/keys/index.js';

const run = promisify(execFile);
const keysCli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'src/cli/keys.ts', ...args], { cwd: process.cwd() });

function exports(stdout: string): Map<string, string> {
  const lines = stdout.trim().split('\n');
  return new Map(lines.map((line) => {
    const match = /^export ([A-Z_]+)='([^']*)'$/.exec(line);
    if (!match?.[1] || match[2] === undefined) throw new Error(`not an export line: ${line}`);
    return [match[1], match[2]];
  }));
}
const kids = (set: string): string[] => (JSON.parse(set) as { keys: PrivateJwk[] }).keys.map((key) => key.kid);

describe('npm run keys', () => {
  it('prints a JWT_PRIVATE_KEY set of one key and a MASTER_KEY that load as production keys', async () => {
    const printed = exports((await keysCli()).stdout);
    expect([...printed.keys()]).to.deep.equal(['JWT_PRIVATE_KEY', 'MASTER_KEY']);
    const jwt = printed.get('JWT_PRIVATE_KEY') ?? '';
    expect(kids(jwt)).to.have.length(1);
    const keys = await loadKeys({ production: true, dataDir: '/nonexistent', jwtPrivateKey: jwt, masterKey: printed.get('MASTER_KEY') ?? '' });
    expect(keys.signing.kid).to.equal(kids(jwt)[0]);
  });

  it('--rotate prints a set with a new first key followed by the old ones, and no MASTER_KEY', async () => {
    const original = exports((await keysCli()).stdout).get('JWT_PRIVATE_KEY') ?? '';
    const once = exports((await keysCli('--rotate', original)).stdout);
    expect([...once.keys()]).to.deep.equal(['JWT_PRIVATE_KEY']);
    const rotated = once.get('JWT_PRIVATE_KEY') ?? '';
    expect(kids(rotated)).to.have.length(2);
    expect(kids(rotated).slice(1)).to.deep.equal(kids(original));
    const twice = exports((await keysCli('--rotate', rotated)).stdout).get('JWT_PRIVATE_KEY') ?? '';
    expect(kids(twice).slice(1)).to.deep.equal(kids(rotated));
  });

  it('--rotate refuses a set that is not Ed25519, printing nothing to evaluate', async () => {
    let failure: { code?: number; stdout?: string; stderr?: string } = {};
    try { await keysCli('--rotate', '{"kty":"RSA","n":"x","e":"AQAB"}'); } catch (e) { failure = e as typeof failure; }
    expect(failure.code).to.equal(1);
    expect(failure.stdout).to.equal('');
    expect(failure.stderr).to.match(/--rotate: .*only OKP Ed25519/);
  });
});
