import { expect } from 'chai';
import { attackerEd25519, ed25519, forge } from '../../identity/tokens/forge.js';
import { mainBackend } from '../../support/databases.js';
import type { Reply } from '../../support/http.js';
import { RecordingMailer, TestClock } from '../../support/recording-mailer.js';
import { claimsOf, orgClient, type OrgClient } from '../org/org-client.js';
import { startTestService, type TestService } from '../support/service.js';

const HOUR = 60 * 60_000;
const ME = '{ user { me { email } } }';

/** The 401 as RFC 6750 §3 and contract §0 shape it: status, code, the challenge and the detail. */
function unauthenticated(r: Reply): { detail: string; challenge: string | null } {
  expect(r.status, JSON.stringify(r.body)).to.equal(401);
  expect(r.body.code).to.equal('unauthenticated');
  return { detail: String(r.body.detail), challenge: r.headers.get('www-authenticate') };
}

/** A token was sent: the challenge names invalid_token and says what the detail says. */
function refusedToken(r: Reply, reason: RegExp): void {
  const { detail, challenge } = unauthenticated(r);
  expect(detail).to.match(reason);
  expect(challenge).to.equal(`Bearer error="invalid_token", error_description="${detail}"`);
}

describe(`§10.5 401 says why (RFC 6750 §3; ${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  const clock = new TestClock(Date.now());
  let service: TestService;
  let api: OrgClient;
  let person: { email: string; token: string };
  let memberToken: string;

  before(async () => {
    service = await startTestService({ domain: { mailer, now: clock.now } });
    api = orgClient(service.url, mailer);
    person = await api.user();
    memberToken = await api.signIn(person.token, await api.organization(person.token));
  });
  after(() => service.close());

  it('given no token, a Bearer route answers WWW-Authenticate: Bearer alone and a detail saying no token was sent', async () => {
    for (const r of [await api.get('/org/v1/key'), await api.post('/graphql', undefined, { query: ME }), await api.get('/vault/export')]) {
      const { detail, challenge } = unauthenticated(r);
      expect(challenge).to.equal('Bearer');
      expect(detail).to.match(/no access token/);
    }
  });

  it('given a token of another scheme than Bearer, the answer is as for no token', async () => {
    const r = await fetch(`${service.url}/org/v1/key`, { headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' } });
    const { detail, challenge } = unauthenticated({
      status: r.status,
      headers: r.headers,
      body: (await r.json()) as Record<string, unknown>,
    });
    expect(challenge).to.equal('Bearer');
    expect(detail).to.match(/no access token/);
  });

  it('given a malformed token, the detail says it is malformed', async () => {
    refusedToken(await api.get('/org/v1/key', 'not-a-token'), /malformed/);
    refusedToken(await api.post('/graphql', 'a.b.c', { query: ME }), /malformed/);
  });

  it('given a token signed under a key the service does not know, the detail says the key is unknown', async () => {
    const header = { alg: 'EdDSA', typ: 'JWT', kid: 'retired-key' };
    const token = await forge(header, { ...claimsOf(person.token) }, ed25519(attackerEd25519().privateKey));
    refusedToken(await api.post('/graphql', token, { query: ME }), /unknown .*key/);
  });

  it('given a user token on /org/v1, the detail says to use an organization token from POST /org/v1/token', async () => {
    refusedToken(await api.get('/org/v1/key', person.token), /use an organization token from POST \/org\/v1\/token/);
  });

  it('given an organization token on /graphql or /vault, the detail says the route takes a user token', async () => {
    refusedToken(await api.post('/graphql', memberToken, { query: ME }), /organization token .*user token/);
    refusedToken(await api.get('/vault/export', memberToken), /organization token .*user token/);
    refusedToken(
      await api.post('/org/v1/token', memberToken, { organizationId: claimsOf(memberToken).org }),
      /organization token .*user token/,
    );
  });

  it("given a token whose session ended, the detail says the session ended; a removed member's token says the membership did", async () => {
    const other = await api.user();
    const otherMember = await api.signIn(other.token, await api.organization(other.token));
    const revoked = await api.post('/graphql', other.token, {
      query: 'mutation { user { security { revokeAllSessionsIncludingCurrent } } }',
    });
    expect(revoked.status).to.equal(200);
    refusedToken(await api.post('/graphql', other.token, { query: ME }), /session .*ended/);
    refusedToken(await api.get('/org/v1/key', otherMember), /session .*ended/);

    const removed = await api.user();
    await api.put(`/org/v1/members/${removed.email}`, memberToken, { permissions: ['request_read'] });
    const removedToken = await api.signIn(removed.token, String(claimsOf(memberToken).org));
    await api.del(`/org/v1/members/${removed.email}`, memberToken);
    refusedToken(await api.get('/org/v1/key', removedToken), /no longer .*member/);
  });

  it('given an expired token, the detail says it expired', async () => {
    const soon = await api.user();
    clock.advance(73 * HOUR);
    refusedToken(await api.post('/graphql', soon.token, { query: ME }), /expired/);
    refusedToken(await api.get('/org/v1/key', memberToken), /expired/);
  });
});
