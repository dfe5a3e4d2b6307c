import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mainBackend } from '../../support/databases.js';
import { client } from '../../support/http.js';
import { RecordingMailer, TestClock } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe(`login and sessions over HTTP (spec 4.1, 7, 8; ${mainBackend})`, function () {
  this.timeout(60_000);
  let service: TestService;
  let mailer: RecordingMailer;
  let clock: TestClock;
  let api: ReturnType<typeof client>;

  before(async () => {
    mailer = new RecordingMailer();
    clock = new TestClock(Date.now());
    service = await startTestService({ domain: { mailer, now: clock.now } });
    api = client(service.url);
  });
  after(() => service.close());

  const freshEmail = () => `u${randomBytes(4).toString('hex')}@example.com`;

  async function login(email = freshEmail()): Promise<{ token: string; expiresAt: string; isNewUser: boolean; email: string }> {
    expect((await api.post('/auth/send-otp', { email })).status).to.equal(200);
    const r = await api.post('/auth/verify-otp', { email, code: mailer.lastCodeFor(email.trim().toLowerCase()) });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return { ...(r.body as { token: string; expiresAt: string; isNewUser: boolean }), email };
  }

  const problem = (r: { status: number; headers: Headers; body: Record<string, unknown> }) => ({
    status: r.status,
    code: r.body.code,
    type: r.headers.get('content-type')?.split(';')[0],
  });

  describe('send-otp', () => {
    it('answers 200 {success: true} for known and unknown addresses alike: same status, body and headers', async () => {
      const known = await login();
      const a = await api.post('/auth/send-otp', { email: known.email });
      const b = await api.post('/auth/send-otp', { email: freshEmail() });
      expect(a.status).to.equal(200);
      expect(a.body).to.deep.equal({ success: true });
      expect(b.body).to.deep.equal(a.body);
      const comparable = (h: Headers) =>
        [...h.entries()].filter(([k]) => !['date', 'x-request-id', 'x-correlation-id', 'content-length', 'etag'].includes(k));
      expect(comparable(b.headers)).to.deep.equal(comparable(a.headers));
    });

    it('400 invalid_email for a malformed address, 400 invalid_request for a missing or non-string one', async () => {
      expect(problem(await api.post('/auth/send-otp', { email: 'not-an-address' }))).to.include({
        status: 400,
        code: 'invalid_email',
        type: 'application/problem+json',
      });
      expect(problem(await api.post('/auth/send-otp', { email: 'a\u200b@x.com' }))).to.include({ status: 400, code: 'invalid_email' });
      expect(problem(await api.post('/auth/send-otp', { email: 'a\u0000b@x.com' }))).to.include({ status: 400, code: 'invalid_email' });
      expect(problem(await api.post('/auth/verify-otp', { email: 'a\u0007b@x.com', code: '123456' }))).to.include({
        status: 400,
        code: 'invalid_email',
      });
      expect(problem(await api.post('/auth/send-otp', {}))).to.include({ status: 400, code: 'invalid_request' });
      expect(problem(await api.post('/auth/send-otp', { email: 42 }))).to.include({ status: 400, code: 'invalid_request' });
      expect(problem(await api.post('/auth/send-otp', { email: `${'a'.repeat(400)}@x.com` }))).to.include({
        status: 400,
        code: 'invalid_request',
      });
    });

    it('the fourth send in an hour is 429 rate_limited with Retry-After; the bucket is the normalized address', async () => {
      const email = freshEmail();
      await api.post('/auth/send-otp', { email });
      await api.post('/auth/send-otp', { email: email.toUpperCase() });
      await api.post('/auth/send-otp', { email: `  ${email}  ` });
      const fourth = await api.post('/auth/send-otp', { email });
      expect(problem(fourth)).to.include({ status: 429, code: 'rate_limited' });
      expect(Number(fourth.headers.get('retry-after'))).to.be.within(1, 3600);
      clock.advance(HOUR);
      expect((await api.post('/auth/send-otp', { email })).status).to.equal(200);
    });

    it('503 email_unavailable when mail cannot be sent, and no allowance is used', async () => {
      const email = freshEmail();
      mailer.failing = true;
      try {
        expect(problem(await api.post('/auth/send-otp', { email }))).to.include({ status: 503, code: 'email_unavailable' });
      } finally {
        mailer.failing = false;
      }
      for (let i = 0; i < 3; i++) expect((await api.post('/auth/send-otp', { email })).status).to.equal(200);
    });
  });

  describe('verify-otp', () => {
    it('answers a token, its expiry 72 h ahead and isNewUser; Alice@X.com and alice@x.com are one account', async () => {
      const email = freshEmail();
      const first = await login(email.toUpperCase());
      expect(first.isNewUser).to.equal(true);
      expect(Date.parse(first.expiresAt) - clock.now().getTime()).to.be.closeTo(72 * HOUR, 5000);
      expect(first.token.split('.')).to.have.length(3);
      const me1 = await api.graphql(first.token, '{ user { me { email userId } } }');
      const second = await login(email);
      // Not registered yet: the identity is new to the second login too.
      expect(second.isNewUser).to.equal(true);
      const me2 = await api.graphql(second.token, '{ user { me { email userId } } }');
      expect(me1.body).to.deep.equal(me2.body);
      expect((me1.body.data as { user: { me: { email: string } } }).user.me.email).to.equal(email);
    });

    it('400 invalid_request for a missing or non-string email or code', async () => {
      for (const body of [
        {},
        { email: 'a@x.com' },
        { code: '123456' },
        { email: 'a@x.com', code: 123456 },
        { email: ['a@x.com'], code: '123456' },
      ]) {
        expect(problem(await api.post('/auth/verify-otp', body)), JSON.stringify(body)).to.include({
          status: 400,
          code: 'invalid_request',
        });
      }
    });

    it('wrong, expired, used, unknown and malformed codes all answer the same 401 invalid_code', async () => {
      const email = freshEmail();
      await api.post('/auth/send-otp', { email });
      const right = mailer.lastCodeFor(email);
      const answers = [];
      for (const code of [right === '000000' ? '000001' : '000000', '12345', '１２３４５６'])
        answers.push(await api.post('/auth/verify-otp', { email, code }));
      answers.push(await api.post('/auth/verify-otp', { email: freshEmail(), code: '123456' }));
      expect((await api.post('/auth/verify-otp', { email, code: right })).status).to.equal(200);
      answers.push(await api.post('/auth/verify-otp', { email, code: right }));
      const expired = freshEmail();
      await api.post('/auth/send-otp', { email: expired });
      clock.advance(15 * MIN);
      answers.push(await api.post('/auth/verify-otp', { email: expired, code: mailer.lastCodeFor(expired) }));
      for (const a of answers) expect(problem(a)).to.include({ status: 401, code: 'invalid_code' });
      expect(new Set(answers.map((a) => JSON.stringify({ ...a.body, requestId: null })))).to.have.length(1);
    });

    it('after five wrong tries, 429 too_many_attempts with Retry-After, even for the right code', async () => {
      const email = freshEmail();
      await api.post('/auth/send-otp', { email });
      const right = mailer.lastCodeFor(email);
      const wrong = right === '999999' ? '999998' : '999999';
      for (let i = 0; i < 5; i++) expect((await api.post('/auth/verify-otp', { email, code: wrong })).status).to.equal(401);
      const r = await api.post('/auth/verify-otp', { email, code: right });
      expect(problem(r)).to.include({ status: 429, code: 'too_many_attempts' });
      expect(r.headers.get('retry-after')).to.match(/^\d+$/);
    });
  });

  describe('renew and revocation', () => {
    it('renew keeps the session, answers a new token and a later expiresAt; the old token stays valid', async () => {
      const s = await login();
      clock.advance(HOUR);
      const r = await api.post('/auth/renew', undefined, s.token);
      expect(r.status).to.equal(200);
      expect(Date.parse(r.body.expiresAt as string)).to.be.greaterThan(Date.parse(s.expiresAt));
      const me = await api.graphql(r.body.token as string, '{ user { me { sessions { current } } } }');
      expect(
        (me.body.data as { user: { me: { sessions: Array<{ current: boolean }> } } }).user.me.sessions.filter((x) => x.current),
      ).to.have.length(1);
      expect((await api.graphql(s.token, '{ user { me { email } } }')).status).to.equal(200);
    });

    it('renew without a token, or with a garbage one, is 401 unauthenticated', async () => {
      expect(problem(await api.post('/auth/renew'))).to.include({ status: 401, code: 'unauthenticated' });
      expect(problem(await api.post('/auth/renew', undefined, 'abc.def.ghi'))).to.include({ status: 401, code: 'unauthenticated' });
    });

    it("a revoked session's token fails on the very next request", async () => {
      const s = await login();
      await api.graphql(s.token, 'mutation { user { register(input: {}) { userId } } }');
      const me = await api.graphql(s.token, '{ user { me { sessions { sessionId current } } } }');
      const sid = (me.body.data as { user: { me: { sessions: Array<{ sessionId: string; current: boolean }> } } }).user.me.sessions.find(
        (x) => x.current,
      )!.sessionId;
      const revoked = await api.graphql(s.token, `mutation { user { security { revokeSession(sessionId: "${sid}") } } }`);
      expect(revoked.body).to.deep.equal({ data: { user: { security: { revokeSession: true } } } });
      expect(problem(await api.post('/auth/renew', undefined, s.token))).to.include({ status: 401, code: 'unauthenticated' });
      expect((await api.graphql(s.token, '{ user { me { email } } }')).status).to.equal(401);
    });

    it("revokeAllSessions ends every other session of the caller and no other user's", async () => {
      const email = freshEmail();
      const [a, b, c] = [await login(email), await login(email), await login(email)];
      const other = await login();
      await api.graphql(a.token, 'mutation { user { register(input: {}) { userId } } }');
      const r = await api.graphql(a.token, 'mutation { user { security { revokeAllSessions } } }');
      expect(r.body).to.deep.equal({ data: { user: { security: { revokeAllSessions: 2 } } } });
      expect((await api.post('/auth/renew', undefined, a.token)).status).to.equal(200);
      for (const gone of [b, c]) expect((await api.post('/auth/renew', undefined, gone.token)).status).to.equal(401);
      expect((await api.post('/auth/renew', undefined, other.token)).status).to.equal(200);

      const all = await api.graphql(a.token, 'mutation { user { security { revokeAllSessionsIncludingCurrent } } }');
      expect(all.body).to.deep.equal({ data: { user: { security: { revokeAllSessionsIncludingCurrent: 1 } } } });
      expect((await api.post('/auth/renew', undefined, a.token)).status).to.equal(401);
    });

    it("another user's session id answers NOT_FOUND, as an unknown one does", async () => {
      const a = await login();
      const b = await login();
      await api.graphql(a.token, 'mutation { user { register(input: {}) { userId } } }');
      const bMe = await api.graphql(b.token, '{ user { me { sessions { sessionId } } } }');
      const bSid = (bMe.body.data as { user: { me: { sessions: Array<{ sessionId: string }> } } }).user.me.sessions[0]!.sessionId;
      for (const sid of [bSid, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const r = await api.graphql(a.token, `mutation { user { security { revokeSession(sessionId: "${sid}") } } }`);
        expect((r.body.errors as Array<{ extensions: { code: string } }>)[0]!.extensions.code, sid).to.equal('NOT_FOUND');
      }
      expect((await api.post('/auth/renew', undefined, b.token)).status).to.equal(200);
    });
  });

  describe('user.register (spec 4.1 step 3, contract 1)', () => {
    it('isNewUser is true until register, then false; register twice gives the same userId', async () => {
      const email = freshEmail();
      const s = await login(email);
      expect(s.isNewUser).to.equal(true);
      const first = await api.graphql(s.token, 'mutation { user { register(input: {}) { userId } } }');
      const again = await api.graphql(s.token, 'mutation { user { register(input: { displayName: "Ann" }) { userId } } }');
      const userId = (first.body.data as { user: { register: { userId: string } } }).user.register.userId;
      expect(userId).to.match(/^[0-9a-f-]{36}$/);
      expect((again.body.data as { user: { register: { userId: string } } }).user.register.userId).to.equal(userId);
      expect((await login(email)).isNewUser).to.equal(false);
    });

    it('before register, security mutations are FORBIDDEN with a message to register first; me works', async () => {
      const s = await login();
      const r = await api.graphql(s.token, 'mutation { user { security { revokeAllSessions } } }');
      const error = (r.body.errors as Array<{ message: string; extensions: { code: string } }>)[0]!;
      expect(error.extensions.code).to.equal('FORBIDDEN');
      expect(error.message).to.match(/register/);
      const me = await api.graphql(s.token, '{ user { me { userId email } } }');
      expect((me.body.data as { user: { me: { userId: unknown } } }).user.me.userId).to.equal(null);
    });

    it("POST /graphql without a token, or with a user token's signature stripped, is HTTP 401 problem+json", async () => {
      expect(problem(await api.graphql(undefined, '{ user { me { email } } }'))).to.include({
        status: 401,
        code: 'unauthenticated',
        type: 'application/problem+json',
      });
      const s = await login();
      const stripped = s.token.slice(0, s.token.lastIndexOf('.') + 1);
      expect(problem(await api.graphql(stripped, '{ user { me { email } } }'))).to.include({ status: 401, code: 'unauthenticated' });
    });

    it('a query nested deeper than 15 levels or wider than 200 fields is refused with a GraphQL error', async () => {
      const s = await login();
      const nested = (levels: number) => `{ __schema { types { ${'ofType { '.repeat(levels - 3)}name ${'} '.repeat(levels - 2)}} }`;
      expect((await api.graphql(s.token, nested(15))).body.errors).to.equal(undefined);
      const deep = await api.graphql(s.token, nested(16));
      expect((deep.body.errors as Array<{ message: string }>)[0]!.message).to.match(/nested 16 levels/);
      const wide = await api.graphql(s.token, `{ user { me { ${Array.from({ length: 201 }, (_, i) => `e${i}: email`).join(' ')} } } }`);
      expect((wide.body.errors as Array<{ message: string }>)[0]!.message).to.match(/more than 200 fields/);
    });
  });

  describe('verify-email (spec 4.1, contract 1)', () => {
    it('a code sent to a secondary address confirms it: me.verifiedEmails lists it; a wrong code is 401 invalid_code', async () => {
      const s = await login();
      const secondary = freshEmail();
      const sent = await api.post('/auth/verify-email/send', { email: secondary }, s.token);
      expect(sent.status).to.equal(200);
      expect(sent.body).to.deep.equal({ success: true });
      const code = mailer.lastCodeFor(secondary);
      expect(
        problem(await api.post('/auth/verify-email/confirm', { email: secondary, code: code === '111111' ? '111112' : '111111' }, s.token)),
      ).to.include({ status: 401, code: 'invalid_code' });
      const ok = await api.post('/auth/verify-email/confirm', { email: secondary, code }, s.token);
      expect(ok.body).to.deep.equal({ verified: true });
      const me = await api.graphql(s.token, '{ user { me { verifiedEmails } } }');
      expect((me.body.data as { user: { me: { verifiedEmails: string[] } } }).user.me.verifiedEmails).to.deep.equal([secondary]);
    });

    it('shares the send limit: the fourth send in an hour is 429; it needs a token', async () => {
      const s = await login();
      const secondary = freshEmail();
      for (let i = 0; i < 3; i++) await api.post('/auth/verify-email/send', { email: secondary }, s.token);
      expect(problem(await api.post('/auth/verify-email/send', { email: secondary }, s.token))).to.include({
        status: 429,
        code: 'rate_limited',
      });
      expect(problem(await api.post('/auth/verify-email/send', { email: secondary }))).to.include({ status: 401, code: 'unauthenticated' });
    });
  });

  it('GET /.well-known/jwks.json publishes the public Ed25519 key that verifies our tokens', async () => {
    const r = await api.get('/.well-known/jwks.json');
    const keys = r.body.keys as Array<Record<string, unknown>>;
    expect(keys[0]).to.include({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    expect(keys[0]).to.not.have.property('d');
    const { createLocalJWKSet, jwtVerify } = await import('jose');
    const s = await login();
    const verified = await jwtVerify(s.token, createLocalJWKSet({ keys: keys }), { audience: 'user' });
    expect(verified.payload).to.include.keys('sub', 'sid', 'email', 'iat', 'exp', 'iss');
  });
});
