import { expect } from 'chai';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint } from 'jose';
import { ConfigError } from '../../../src/config.js';
import { generatePrivateJwk, loadKeys, serializeJwkSet, type KeyConfig } from '../../../src/identity/keys/index.js';

const MASTER = randomBytes(32);
const configured = (jwtPrivateKey: string, masterKey = MASTER.toString('base64')): KeyConfig => ({
  production: true,
  dataDir: '/nonexistent',
  jwtPrivateKey,
  masterKey,
});

async function refusal(config: KeyConfig): Promise<ConfigError> {
  try {
    await loadKeys(config);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  return expect.fail('loaded keys that should have been refused');
}

describe('loading keys (contract §1 keys, §7 configuration)', () => {
  it('a single JWK without kid gets its RFC 7638 thumbprint as kid', async () => {
    const { kid: _, ...bare } = await generatePrivateJwk();
    const keys = await loadKeys(configured(JSON.stringify({ kty: bare.kty, crv: bare.crv, x: bare.x, d: bare.d })));
    const thumbprint = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: bare.x });
    expect(keys.signing.kid).to.equal(thumbprint);
    expect([...keys.verifying.keys()]).to.deep.equal([thumbprint]);
  });

  it('a single JWK keeps its own kid; a set signs with its first key and verifies with all', async () => {
    const [a, b] = [await generatePrivateJwk(), await generatePrivateJwk()];
    expect((await loadKeys(configured(JSON.stringify({ ...a, kid: 'mine-1' })))).signing.kid).to.equal('mine-1');
    const keys = await loadKeys(
      configured(
        serializeJwkSet([
          { ...a, kid: 'k1' },
          { ...b, kid: 'k2' },
        ]),
      ),
    );
    expect(keys.signing.kid).to.equal('k1');
    expect([...keys.verifying.keys()]).to.deep.equal(['k1', 'k2']);
  });

  it('publishes only public halves, each with kid, alg EdDSA and use sig', async () => {
    const key = await generatePrivateJwk();
    const keys = await loadKeys(configured(serializeJwkSet([key])));
    expect(keys.jwks).to.deep.equal({ keys: [{ kty: 'OKP', crv: 'Ed25519', kid: key.kid, x: key.x, alg: 'EdDSA', use: 'sig' }] });
    expect(JSON.stringify(keys.jwks)).to.not.contain(key.d);
    expect(keys.signing.privateKey.extractable).to.equal(false);
  });

  it('refuses RSA, EC, oct and X25519 keys, naming JWT_PRIVATE_KEY and only Ed25519 as accepted', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const x25519 = generateKeyPairSync('x25519').privateKey.export({ format: 'jwk' });
    const oct = { kty: 'oct', k: randomBytes(32).toString('base64url') };
    for (const key of [rsa, ec, oct, x25519]) {
      const error = await refusal(configured(JSON.stringify(key)));
      expect(error.message).to.match(/JWT_PRIVATE_KEY: .*only OKP Ed25519/);
    }
    const good = await generatePrivateJwk();
    expect((await refusal(configured(serializeJwkSet([good]).replace('{"keys":[', `{"keys":[${JSON.stringify(rsa)},`)))).message).to.match(
      /key 1 of the set has kty RSA/,
    );
  });

  it("refuses a public-only key, an x that is not d's, a bad d, repeated kids, an empty set and non-JSON, never echoing key material", async () => {
    const [a, b] = [await generatePrivateJwk(), await generatePrivateJwk()];
    const { d: _, ...publicOnly } = a;
    const cases: Array<[string, RegExp]> = [
      [JSON.stringify(publicOnly), /public key/],
      [JSON.stringify({ ...a, x: b.x }), /"x" that does not belong/],
      [JSON.stringify({ ...a, d: 'AAAA' }), /"d" that is not 32 bytes/],
      [JSON.stringify({ ...a, alg: 'RS256' }), /only EdDSA/],
      [serializeJwkSet([a, { ...b, kid: a.kid }]), /repeats kid/],
      ['{"keys":[]}', /non-empty "keys"/],
      [`${JSON.stringify(a)} trailing`, /not JSON/],
    ];
    for (const [text, message] of cases) {
      const error = await refusal(configured(text));
      expect(error.message).to.match(message).and.to.contain('JWT_PRIVATE_KEY');
      expect(error.message).to.not.contain(a.d).and.not.contain(b.d);
    }
  });

  it('MASTER_KEY must decode to exactly 32 bytes, from base64 or base64url', async () => {
    const jwt = serializeJwkSet([await generatePrivateJwk()]);
    for (const length of [0, 16, 31, 33, 64]) {
      const text = randomBytes(length).toString('base64') || '=';
      expect((await refusal(configured(jwt, text))).message).to.match(/MASTER_KEY: /);
    }
    expect((await refusal(configured(jwt, 'not base64!'))).message).to.match(/MASTER_KEY: not base64/);
    const bytes = randomBytes(32);
    expect((await loadKeys(configured(jwt, bytes.toString('base64')))).masterKey.equals(bytes)).to.equal(true);
    expect((await loadKeys(configured(jwt, bytes.toString('base64url')))).masterKey.equals(bytes)).to.equal(true);
  });

  it('reports a bad JWT_PRIVATE_KEY and a bad MASTER_KEY together', async () => {
    const error = await refusal(configured('{"kty":"RSA"}', 'c2hvcnQ='));
    expect(error.problems).to.have.length(2);
  });

  it('in production, missing keys are refused and no dev keys are written', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'keys-prod-'));
    const error = await refusal({ production: true, dataDir, jwtPrivateKey: null, masterKey: MASTER.toString('base64') });
    expect(error.message).to.contain('JWT_PRIVATE_KEY');
    expect(await readdir(dataDir)).to.deep.equal([]);
  });
});
