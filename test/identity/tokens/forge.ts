import { expect } from 'chai';
import { createHmac, generateKeyPairSync, sign as nodeSign, webcrypto, type KeyObject } from 'node:crypto';
import { exportJWK, type CryptoKey, type JWK } from 'jose';
import { loadKeys, serializeJwkSet, generatePrivateJwk, type Keys, type PrivateJwk } from '../../../src/identity/keys/index.js';
import { TokenIssuer, TokenVerifier, type RefusalReason, type VerifyResult } from '../../../src/identity/tokens/index.js';

/**
 * Hand-made tokens, so a test can put anything in the header and payload and sign it with any key
 * and algorithm, the way an attacker would; jose's signer would refuse some of these.
 */
export const ISSUER = 'https://service.test';
export const NOW = new Date('2030-01-01T12:00:00.000Z');
export const NOW_S = Math.floor(NOW.getTime() / 1000);

export const b64 = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

export type Signer = (input: Buffer) => Buffer | Promise<Buffer>;

export async function forge(header: Record<string, unknown>, payload: Record<string, unknown>, signer: Signer): Promise<string> {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${(await signer(Buffer.from(input))).toString('base64url')}`;
}

/** Signs with one of our own (non-extractable) keys: proves a claim rule, not a signature rule, refuses. */
export const ourKey =
  (key: CryptoKey): Signer =>
  async (input) =>
    Buffer.from(await webcrypto.subtle.sign('Ed25519', key, input));
export const ed25519 =
  (key: KeyObject): Signer =>
  (input) =>
    nodeSign(null, input, key);
export const hs256 =
  (secret: Buffer | string): Signer =>
  (input) =>
    createHmac('sha256', secret).update(input).digest();
export const es256 =
  (key: KeyObject): Signer =>
  (input) =>
    nodeSign('sha256', input, { key, dsaEncoding: 'ieee-p1363' });
export const rs256 =
  (key: KeyObject): Signer =>
  (input) =>
    nodeSign('sha256', input, key);

export function attackerEd25519(): { privateKey: KeyObject; publicJwk: JWK } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicJwk: publicKey.export({ format: 'jwk' }) };
}

export const validPayload = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  iss: ISSUER,
  aud: 'user',
  sub: 'identity-1',
  sid: 'session-1',
  email: 'alice@example.com',
  iat: NOW_S,
  exp: NOW_S + 3600,
  ...overrides,
});

export type TestKeys = { keys: Keys; jwks: PrivateJwk[]; issuer: TokenIssuer; verifier: TokenVerifier; publicJwk: JWK };

/** A service's key set from JWT_PRIVATE_KEY, with an issuer and a verifier on a fixed clock. */
export async function serviceKeys(jwks?: PrivateJwk[]): Promise<TestKeys> {
  const set = jwks ?? [await generatePrivateJwk()];
  const keys = await loadKeys({
    production: true,
    dataDir: '/nonexistent',
    jwtPrivateKey: serializeJwkSet(set),
    masterKey: Buffer.alloc(32, 7).toString('base64'),
  });
  const [first] = set;
  if (!first) throw new Error('empty set');
  return {
    keys,
    jwks: set,
    issuer: new TokenIssuer({ issuer: ISSUER, signing: keys.signing, now: () => NOW }),
    verifier: new TokenVerifier({ issuer: ISSUER, verifying: keys.verifying, now: () => NOW }),
    publicJwk: await exportJWK(keys.verifying.get(first.kid) as CryptoKey),
  };
}

export const session = {
  identityId: 'identity-1',
  sessionId: 'session-1',
  email: 'alice@example.com',
  expiresAt: new Date(NOW.getTime() + 72 * 3600_000),
};
export const member = {
  ...session,
  organizationId: 'org-1',
  permissions: ['request_read', 'request_manage'],
  membership: '00000000-0000-4000-8000-000000000001',
};

export function refusedWith<C>(result: VerifyResult<C>, reason: RefusalReason): void {
  if (result.ok) expect.fail(`expected refusal ${reason}, got claims ${JSON.stringify(result.claims)}`);
  expect(result.reason).to.equal(reason);
}
