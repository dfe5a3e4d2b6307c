import { expect } from 'chai';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { TokenIssuer, TokenVerifier } from '../../../src/identity/tokens/index.js';
import { ISSUER, member, NOW, NOW_S, ourKey, forge, refusedWith, serviceKeys, session, validPayload, type TestKeys } from './forge.js';

describe('access tokens (contract §1, §2)', () => {
  let k: TestKeys;
  before(async () => {
    k = await serviceKeys();
  });

  it('a user token carries alg EdDSA, our kid, typ JWT and verifies with exactly the contract claims', async () => {
    const token = await k.issuer.userToken(session);
    expect(decodeProtectedHeader(token)).to.deep.equal({ alg: 'EdDSA', kid: k.keys.signing.kid, typ: 'JWT' });
    const result = await k.verifier.verify(token, 'user');
    expect(result).to.deep.equal({
      ok: true,
      claims: {
        iss: ISSUER,
        aud: 'user',
        sub: 'identity-1',
        sid: 'session-1',
        email: 'alice@example.com',
        iat: NOW_S,
        exp: NOW_S + 72 * 3600,
      },
    });
  });

  it('a member token adds org, perms and its membership under aud org', async () => {
    const result = await k.verifier.verify(await k.issuer.orgToken(member), 'org');
    if (!result.ok) expect.fail(result.reason);
    expect(result.claims).to.include({ aud: 'org', org: 'org-1', sub: 'identity-1', sid: 'session-1', membership: member.membership });
    expect(result.claims.perms).to.deep.equal(['request_read', 'request_manage']);
  });

  it('exp is the session end passed in, and an ended session gets no token', async () => {
    const expiresAt = new Date('2030-01-02T00:00:00.000Z');
    const result = await k.verifier.verify(await k.issuer.userToken({ ...session, expiresAt }), 'user');
    expect(result.ok && result.claims.exp).to.equal(expiresAt.getTime() / 1000);
    let error: unknown;
    try {
      await k.issuer.userToken({ ...session, expiresAt: NOW });
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(RangeError);
  });

  it('any JOSE library verifies our tokens with the published JWKS (GET /.well-known/jwks.json)', async () => {
    const token = await k.issuer.userToken(session);
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: [...k.keys.jwks.keys] }), {
      currentDate: NOW,
      issuer: ISSUER,
      audience: 'user',
    });
    expect(payload.sid).to.equal('session-1');
  });

  it('answers wrong_audience for a user token where org is expected, and for a member token where user is expected', async () => {
    refusedWith(await k.verifier.verify(await k.issuer.userToken(session), 'org'), 'wrong_audience');
    refusedWith(await k.verifier.verify(await k.issuer.orgToken(member), 'user'), 'wrong_audience');
  });

  it('answers wrong_audience for an aud array naming both audiences (jose alone would accept it)', async () => {
    const token = await forge(
      { alg: 'EdDSA', kid: k.keys.signing.kid, typ: 'JWT' },
      validPayload({ aud: ['user', 'org'] }),
      ourKey(k.keys.signing.privateKey),
    );
    refusedWith(await k.verifier.verify(token, 'user'), 'wrong_audience');
  });

  it('answers wrong_issuer for a token of another issuer, even signed with our key', async () => {
    const other = new TokenIssuer({ issuer: 'https://evil.test', signing: k.keys.signing, now: () => NOW });
    refusedWith(await k.verifier.verify(await other.userToken(session), 'user'), 'wrong_issuer');
  });

  it('tolerates a few seconds of clock skew past exp, then answers expired', async () => {
    const token = await k.issuer.userToken(session);
    const at = (offsetSeconds: number) =>
      new TokenVerifier({
        issuer: ISSUER,
        verifying: k.keys.verifying,
        now: () => new Date(session.expiresAt.getTime() + offsetSeconds * 1000),
      });
    expect((await at(-1).verify(token, 'user')).ok).to.equal(true);
    expect((await at(4).verify(token, 'user')).ok).to.equal(true);
    refusedWith(await at(6).verify(token, 'user'), 'expired');
  });

  it('a token the session check ended is refused so from then on, without another check; another token of the session is not', async () => {
    const verifier = new TokenVerifier({ issuer: ISSUER, verifying: k.keys.verifying, now: () => NOW });
    const ended = await k.issuer.orgToken(member);
    expect((await verifier.verify(ended, 'org')).ok).to.equal(true);
    verifier.end(ended, 'membership_ended');
    refusedWith(await verifier.verify(ended, 'org'), 'membership_ended');
    const later = await k.issuer.orgToken({ ...member, membership: '00000000-0000-4000-8000-000000000002' });
    expect((await verifier.verify(later, 'org')).ok).to.equal(true);
  });

  it("checks a token's signature once, then answers it from memory until it expires, for its audience and key only", async () => {
    let now = NOW;
    const verifying = new Map(k.keys.verifying);
    const verifier = new TokenVerifier({ issuer: ISSUER, verifying, now: () => now });
    const token = await k.issuer.userToken(session);
    const subtle = globalThis.crypto.subtle;
    const real = subtle.verify.bind(subtle);
    let signatureChecks = 0;
    subtle.verify = (...args: Parameters<SubtleCrypto['verify']>) => {
      signatureChecks++;
      return real(...args);
    };
    try {
      const first = await verifier.verify(token, 'user');
      const again = await verifier.verify(token, 'user');
      expect(again).to.deep.equal(first);
      expect(first.ok).to.equal(true);
      expect(signatureChecks).to.equal(1);
      // Another audience is checked in full, and refused.
      refusedWith(await verifier.verify(token, 'org'), 'wrong_audience');
      // A token one character off is not the token remembered.
      refusedWith(
        await verifier.verify(`${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.slice(-1)}`, 'user'),
        'bad_signature',
      );
      // Expiry moves with the clock, remembered or not (5 s of skew allowed, as above).
      now = new Date(session.expiresAt.getTime() + 6000);
      refusedWith(await verifier.verify(token, 'user'), 'expired');
      now = NOW;
      expect((await verifier.verify(token, 'user')).ok).to.equal(true);
      // A key no longer among ours refuses what it signed, checked before.
      verifying.clear();
      refusedWith(await verifier.verify(token, 'user'), 'unknown_kid');
    } finally {
      Reflect.deleteProperty(subtle, 'verify');
    }
  });

  it('answers bad_claims when a claim the service reads is missing or mistyped', async () => {
    const header = { alg: 'EdDSA', kid: k.keys.signing.kid, typ: 'JWT' };
    const sign = ourKey(k.keys.signing.privateKey);
    const { email: _, ...noEmail } = validPayload();
    refusedWith(await k.verifier.verify(await forge(header, noEmail, sign), 'user'), 'bad_claims');
    refusedWith(await k.verifier.verify(await forge(header, validPayload({ sid: 42 }), sign), 'user'), 'bad_claims');
    refusedWith(
      await k.verifier.verify(await forge(header, validPayload({ aud: 'org', perms: ['request_read'] }), sign), 'org'),
      'bad_claims',
    );
    refusedWith(
      await k.verifier.verify(await forge(header, validPayload({ aud: 'org', org: 'org-1', perms: 'request_read' }), sign), 'org'),
      'bad_claims',
    );
    const orgClaims = { aud: 'org', org: 'org-1', perms: [] };
    refusedWith(await k.verifier.verify(await forge(header, validPayload({ ...orgClaims, membership: 7 }), sign), 'org'), 'bad_claims');
    const inMembership = validPayload({ ...orgClaims, membership: member.membership });
    expect((await k.verifier.verify(await forge(header, inMembership, sign), 'org')).ok).to.equal(true);
  });

  it('a member token issued before membership ids reads as of no membership (empty), which no membership row matches', async () => {
    const header = { alg: 'EdDSA', kid: k.keys.signing.kid, typ: 'JWT' };
    const old = await forge(header, validPayload({ aud: 'org', org: 'org-1', perms: [] }), ourKey(k.keys.signing.privateKey));
    const result = await k.verifier.verify(old, 'org');
    expect(result.ok && result.claims.membership).to.equal('');
  });
});
