import { expect } from 'chai';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../src/config.js';
import { DEV_KEYS_FILE, generatePrivateJwk, loadKeys, serializeJwkSet } from '../../../src/identity/keys/index.js';
import { TokenIssuer, TokenVerifier } from '../../../src/identity/tokens/index.js';

const embedded = (dataDir: string) => ({ production: false, dataDir, jwtPrivateKey: null, masterKey: null });
const freshDataDir = async () => join(await mkdtemp(join(tmpdir(), 'dev-keys-')), 'data');

describe('dev keys in DATA_DIR (contract §7: with nothing set the service generates its dev keys)', () => {
  it('are generated once with mode 0600 and reused on the next start, so tokens survive a restart', async () => {
    const dataDir = await freshDataDir();
    const first = await loadKeys(embedded(dataDir));
    const path = join(dataDir, DEV_KEYS_FILE);
    expect((await stat(path)).mode & 0o777).to.equal(0o600);
    const written = await readFile(path, 'utf8');

    const second = await loadKeys(embedded(dataDir));
    expect(await readFile(path, 'utf8')).to.equal(written);
    expect(second.signing.kid).to.equal(first.signing.kid);
    expect(second.masterKey.equals(first.masterKey)).to.equal(true);
    expect(first.masterKey).to.have.length(32);

    const session = { identityId: 'i', sessionId: 's', email: 'a@b.co', expiresAt: new Date(Date.now() + 3600_000) };
    const token = await new TokenIssuer({ issuer: 'http://localhost:3000', signing: first.signing }).userToken(session);
    expect((await new TokenVerifier({ issuer: 'http://localhost:3000', verifying: second.verifying }).verify(token, 'user')).ok).to.equal(
      true,
    );
  });

  it('two processes starting together agree on one set', async () => {
    const dataDir = await freshDataDir();
    const loads = await Promise.all([1, 2, 3, 4].map(() => loadKeys(embedded(dataDir))));
    expect(new Set(loads.map((keys) => keys.signing.kid)).size).to.equal(1);
    expect(new Set(loads.map((keys) => keys.masterKey.toString('hex'))).size).to.equal(1);
  });

  it('fill in only what is unset: a configured JWT_PRIVATE_KEY signs, the master key comes from the file', async () => {
    const dataDir = await freshDataDir();
    const key = await generatePrivateJwk();
    const keys = await loadKeys({ ...embedded(dataDir), jwtPrivateKey: serializeJwkSet([key]) });
    expect(keys.signing.kid).to.equal(key.kid);
    expect(keys.masterKey.equals((await loadKeys(embedded(dataDir))).masterKey)).to.equal(true);
  });

  it('a damaged file is refused with its path named, not silently replaced', async () => {
    const dataDir = await freshDataDir();
    await loadKeys(embedded(dataDir));
    const path = join(dataDir, DEV_KEYS_FILE);
    await writeFile(path, '{"jwtPrivateKey": {"kty": "oct", "k": "c2VjcmV0"}, "masterKey": "c2hvcnQ="}');
    let error: unknown;
    try {
      await loadKeys(embedded(dataDir));
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).problems).to.have.length(2);
    expect((error as ConfigError).message).to.contain(path);
    expect(await readFile(path, 'utf8')).to.contain('c2VjcmV0');
  });
});
