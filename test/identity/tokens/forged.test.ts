import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { MAX_TOKEN_LENGTH } from '../../../src/identity/tokens/index.js';
import { keyForToken } from '../../../src/identity/tokens/header.js';
import {
  attackerEd25519,
  b64,
  ed25519,
  es256,
  forge,
  hs256,
  member,
  NOW_S,
  ourKey,
  refusedWith,
  rs256,
  serviceKeys,
  session,
  validPayload,
  type TestKeys,
} from './forge.js';

/** Every forgery answers a refusal (the API turns each into one 401 unauthenticated). */
describe('forged access tokens are refused (contract §1; issue 4)', () => {
  let k: TestKeys;
  let kid: string;
  let header: Record<string, unknown>;
  before(async () => {
    k = await serviceKeys();
    kid = k.keys.signing.kid;
    header = { alg: 'EdDSA', kid, typ: 'JWT' };
  });
  const verify = (token: string, audience: 'user' | 'org' = 'user') => k.verifier.verify(token, audience);
  const signedByUs = (h: Record<string, unknown>, p: Record<string, unknown>) => forge(h, p, ourKey(k.keys.signing.privateKey));

  it('the control: a hand-made token with our key and valid claims verifies, so every refusal below is the rule at work', async () => {
    expect((await verify(await signedByUs(header, validPayload()))).ok).to.equal(true);
  });

  for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
    it(`alg ${alg}: unsigned, and with a signature part copied from a real token`, async () => {
      const real = await k.issuer.userToken(session);
      const signature = real.split('.')[2] ?? '';
      const unsigned = `${b64({ alg, kid, typ: 'JWT' })}.${b64(validPayload())}`;
      refusedWith(await verify(`${unsigned}.`), 'malformed');
      refusedWith(await verify(`${unsigned}.${signature}`), 'unsupported_alg');
    });
  }

  it('the header check alone refuses every alg but EdDSA, before any key or crypto is touched', async () => {
    for (const alg of ['none', 'HS256', 'ES256', 'RS256', 'Ed25519', 'eddsa', undefined]) {
      expect(keyForToken(await signedByUs({ ...header, alg }, validPayload()), k.keys.verifying)).to.deep.equal({
        reason: 'unsupported_alg',
      });
    }
  });

  it('HS256 signed with our public key bytes (raw x, the JWK JSON, the SPKI PEM): the classic confusion', async () => {
    const x = Buffer.from(String(k.publicJwk.x), 'base64url');
    const { createPublicKey } = await import('node:crypto');
    const pem = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: String(k.publicJwk.x) }, format: 'jwk' }).export({
      format: 'pem',
      type: 'spki',
    });
    for (const secret of [x, JSON.stringify(k.publicJwk), JSON.stringify(k.keys.jwks), String(pem)]) {
      refusedWith(await verify(await forge({ ...header, alg: 'HS256' }, validPayload(), hs256(secret))), 'unsupported_alg');
    }
  });

  it('another Ed25519 key under our kid', async () => {
    refusedWith(await verify(await forge(header, validPayload(), ed25519(attackerEd25519().privateKey))), 'bad_signature');
  });

  it('an unknown kid, even when signed by the key it names', async () => {
    refusedWith(
      await verify(await forge({ ...header, kid: 'attacker-key' }, validPayload(), ed25519(attackerEd25519().privateKey))),
      'unknown_kid',
    );
  });

  for (const injected of [
    '../../x',
    '../../../../dev/null',
    "' OR '1'='1",
    "x'; DROP TABLE sessions; --",
    '__proto__',
    'constructor',
    'hasOwnProperty',
    '',
    `${'k'}${'\u0000'}`,
    '*',
  ]) {
    it(`an injected kid ${JSON.stringify(injected)}`, async () => {
      refusedWith(await verify(await signedByUs({ ...header, kid: injected }, validPayload())), 'unknown_kid');
    });
  }

  it('no kid, or a kid that is not a string', async () => {
    for (const value of [undefined, 0, null, [kid], { kid }]) {
      refusedWith(await verify(await signedByUs({ ...header, kid: value }, validPayload())), 'missing_kid');
    }
  });

  it('an attacker key embedded as a jwk header, signed with it (with our kid, with its own, with none)', async () => {
    const attacker = attackerEd25519();
    for (const kidPart of [{ kid }, { kid: 'attacker' }, {}]) {
      const token = await forge(
        { alg: 'EdDSA', typ: 'JWT', ...kidPart, jwk: attacker.publicJwk },
        validPayload(),
        ed25519(attacker.privateKey),
      );
      refusedWith(await verify(token), 'forbidden_header');
    }
  });

  it('jku, x5u, x5c, x5t headers pointing at attacker keys, and our own key under jku', async () => {
    const attacker = attackerEd25519();
    for (const extra of [
      { jku: 'https://evil.test/jwks.json' },
      { x5u: 'https://evil.test/cert.pem' },
      { x5c: ['MIIB'] },
      { x5t: 'abc' },
      { 'x5t#S256': 'abc' },
    ]) {
      refusedWith(await verify(await forge({ ...header, ...extra }, validPayload(), ed25519(attacker.privateKey))), 'forbidden_header');
      refusedWith(await verify(await signedByUs({ ...header, ...extra }, validPayload())), 'forbidden_header');
    }
  });

  it('a crit header, and any other header we never write, even on a token we signed', async () => {
    refusedWith(await verify(await signedByUs({ ...header, crit: ['exp'], exp: NOW_S + 10 }, validPayload())), 'forbidden_header');
    refusedWith(await verify(await signedByUs({ ...header, crit: ['b64'], b64: false }, validPayload())), 'forbidden_header');
    refusedWith(await verify(await signedByUs({ ...header, cty: 'JWT' }, validPayload())), 'forbidden_header');
  });

  it('a typ other than JWT', async () => {
    for (const typ of [undefined, 'at+jwt', 'jwt', 'JWE']) {
      refusedWith(await verify(await signedByUs({ ...header, typ }, validPayload())), 'bad_header');
    }
  });

  it('expired (beyond the small clock tolerance)', async () => {
    refusedWith(await verify(await signedByUs(header, validPayload({ iat: NOW_S - 7200, exp: NOW_S - 6 }))), 'expired');
  });

  it('a future nbf, and a future iat', async () => {
    refusedWith(await verify(await signedByUs(header, validPayload({ nbf: NOW_S + 60 }))), 'not_yet_valid');
    refusedWith(await verify(await signedByUs(header, validPayload({ iat: NOW_S + 60 }))), 'not_yet_valid');
  });

  for (const claim of ['exp', 'sid', 'iat', 'sub']) {
    it(`missing ${claim}`, async () => {
      const payload = validPayload();
      delete payload[claim];
      refusedWith(await verify(await signedByUs(header, payload)), 'missing_claim');
    });
  }

  it('a tampered payload under the original signature: another subject, a later exp, user turned org', async () => {
    const [h, , s] = (await k.issuer.userToken(session)).split('.');
    const orgToken = (await k.issuer.orgToken(member)).split('.');
    for (const payload of [validPayload({ sub: 'identity-2', exp: NOW_S + 72 * 3600 }), validPayload({ exp: NOW_S + 10 * 365 * 86400 })]) {
      refusedWith(await verify(`${h}.${b64(payload)}.${s}`), 'bad_signature');
    }
    const asOrg = validPayload({ aud: 'org', org: 'org-2', perms: ['member_manage'], exp: NOW_S + 72 * 3600 });
    refusedWith(await verify(`${orgToken[0]}.${b64(asOrg)}.${orgToken[2]}`, 'org'), 'bad_signature');
  });

  it('a stripped signature (header.payload. and header.payload)', async () => {
    const [h, p] = (await k.issuer.userToken(session)).split('.');
    refusedWith(await verify(`${h}.${p}.`), 'malformed');
    refusedWith(await verify(`${h}.${p}`), 'malformed');
  });

  it('ES256 and RS256 tokens, each validly signed by its own key, under our kid', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    refusedWith(await verify(await forge({ ...header, alg: 'ES256' }, validPayload(), es256(ec))), 'unsupported_alg');
    refusedWith(await verify(await forge({ ...header, alg: 'RS256' }, validPayload(), rs256(rsa))), 'unsupported_alg');
    refusedWith(
      await verify(await forge({ ...header, alg: 'Ed25519' }, validPayload(), ourKey(k.keys.signing.privateKey))),
      'unsupported_alg',
    );
  });

  it('garbage strings and non-strings answer malformed and never throw', async () => {
    const real = await k.issuer.userToken(session);
    const garbage: unknown[] = [
      '',
      ' ',
      'abc',
      '.',
      '..',
      '...',
      'a.b.c',
      'a.b.c.d.e',
      `Bearer ${real}`,
      `${real} `,
      ` ${real}`,
      `${real}\n`,
      `${b64('not json')}.${b64(validPayload())}.c2ln`,
      `${b64('null')}.${b64(validPayload())}.c2ln`,
      `${b64('[]')}.${b64(validPayload())}.c2ln`,
      `${b64('"EdDSA"')}.${b64(validPayload())}.c2ln`,
      '\u0000\u0000',
      'ｅｙＪ.ｅｙＪ.ｅｙＪ',
      '👀.👀.👀',
      undefined,
      null,
      42,
      {},
      [real],
    ];
    for (const input of garbage) refusedWith(await k.verifier.verify(input as string, 'user'), 'malformed');
  });

  it('a 100 KiB token, and a validly signed one just over the bound, are refused before parsing', async () => {
    refusedWith(await verify('a'.repeat(100 * 1024)), 'too_long');
    refusedWith(await verify(`${b64(header)}.${'A'.repeat(100 * 1024)}.c2ln`), 'too_long');
    const big = await k.issuer.orgToken({ ...member, permissions: Array.from({ length: 1000 }, (_, i) => `perm_${i}`) });
    expect(big.length).to.be.greaterThan(MAX_TOKEN_LENGTH);
    refusedWith(await verify(big, 'org'), 'too_long');
  });
});
