import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';

type Sent = { status: number; body: Record<string, unknown>; setCookie: string[] };

/** The browser session as the pages use it (contract §11), spoken by hand: a cookie, X-CSRF: 1 and an Origin. */
function browserClient(url: string, origin: string) {
  const send = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Sent> => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, setCookie: res.headers.getSetCookie() };
  };
  const page = { 'x-csrf': '1', origin };
  return {
    send,
    page,
    /** Signs in as the pages do; the cookie's `name=value`, and the answer. */
    async signIn(mailer: RecordingMailer, email = `w${randomBytes(5).toString('hex')}@example.com`) {
      expect((await send('/auth/send-otp', { email }, page)).status).to.equal(200);
      const answer = await send('/auth/verify-otp', { email, code: mailer.lastCodeFor(email) }, page);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      const cookie = answer.setCookie[0]!.split(';')[0]!;
      return { email, cookie, answer };
    },
    me: (cookie: string, headers: Record<string, string> = page) =>
      send('/graphql', { query: '{ user { me { email } } }' }, { cookie, ...headers }),
  };
}

describe(`§11 the browser session: an HttpOnly cookie with a CSRF defence (R-WEB-02 to R-WEB-05; ${mainBackend})`, function () {
  const mailer = new RecordingMailer();
  let service: TestService;
  let web: ReturnType<typeof browserClient>;

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    web = browserClient(service.url, 'http://service.test');
  });
  after(() => service?.close());

  it('verify-otp from the pages sets the session as an HttpOnly, SameSite=Strict, Secure __Host- cookie and answers without the token', async () => {
    const { answer } = await web.signIn(mailer);
    expect(answer.body).to.not.have.property('token');
    expect(answer.body).to.have.property('expiresAt');
    expect(answer.setCookie).to.have.length(1);
    const [pair, ...attributes] = answer.setCookie[0]!.split(';').map((a) => a.trim());
    expect(pair).to.match(/^__Host-session=eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(attributes).to.include.members(['Path=/', 'HttpOnly', 'SameSite=Strict', 'Secure']);
  });

  it('verify-otp without the pages’ header answers the token as before and sets no cookie', async () => {
    const email = `b${randomBytes(5).toString('hex')}@example.com`;
    await web.send('/auth/send-otp', { email });
    const answer = await web.send('/auth/verify-otp', { email, code: mailer.lastCodeFor(email) });
    expect(answer.status).to.equal(200);
    expect(answer.body.token).to.be.a('string');
    expect(answer.setCookie).to.deep.equal([]);
  });

  it('a user route takes the session cookie where it takes a bearer token', async () => {
    const { email, cookie } = await web.signIn(mailer);
    const me = await web.me(cookie);
    expect(me.status, JSON.stringify(me.body)).to.equal(200);
    expect(me.body).to.deep.equal({ data: { user: { me: { email } } } });
  });

  it('a state-changing call with the cookie but without X-CSRF: 1 is 403 forbidden', async () => {
    const { cookie } = await web.signIn(mailer);
    const refused = await web.me(cookie, { origin: 'http://service.test' });
    expect({ status: refused.status, code: refused.body.code }).to.deep.equal({ status: 403, code: 'forbidden' });
    expect(String(refused.body.detail)).to.contain('X-CSRF: 1');
  });

  it('a call with the cookie from another origin is 403 forbidden, even with X-CSRF: 1', async () => {
    const { cookie } = await web.signIn(mailer);
    for (const headers of <Array<Record<string, string>>>[
      { 'x-csrf': '1', origin: 'http://evil.test' },
      { 'x-csrf': '1', 'sec-fetch-site': 'same-site' },
    ]) {
      const refused = await web.me(cookie, headers);
      expect({ status: refused.status, code: refused.body.code }, JSON.stringify(headers)).to.deep.equal({
        status: 403,
        code: 'forbidden',
      });
    }
  });

  it('verify-otp asking for a cookie from another origin is 403 forbidden and sets nothing', async () => {
    const email = `x${randomBytes(5).toString('hex')}@example.com`;
    await web.send('/auth/send-otp', { email });
    const refused = await web.send(
      '/auth/verify-otp',
      { email, code: mailer.lastCodeFor(email) },
      { 'x-csrf': '1', origin: 'http://evil.test' },
    );
    expect({ status: refused.status, code: refused.body.code }).to.deep.equal({ status: 403, code: 'forbidden' });
    expect(refused.setCookie).to.deep.equal([]);
  });

  it('renew through the cookie renews the cookie and answers without the token', async () => {
    const { cookie } = await web.signIn(mailer);
    const renewed = await web.send('/auth/renew', undefined, { cookie, ...web.page });
    expect(renewed.status, JSON.stringify(renewed.body)).to.equal(200);
    expect(renewed.body).to.not.have.property('token');
    expect(renewed.setCookie[0]).to.match(/^__Host-session=eyJ/);
  });

  it('sign out ends the session and clears the cookie', async () => {
    const { cookie } = await web.signIn(mailer);
    const out = await web.send('/auth/sign-out', undefined, { cookie, ...web.page });
    expect(out.status, JSON.stringify(out.body)).to.equal(200);
    expect(out.body).to.deep.equal({ signedOut: true });
    expect(out.setCookie[0]).to.match(/^__Host-session=;.*Max-Age=0/);
    const after = await web.me(cookie);
    expect({ status: after.status, code: after.body.code }).to.deep.equal({ status: 401, code: 'unauthenticated' });
  });

  it('sign out with a bearer token ends that session', async () => {
    const email = `s${randomBytes(5).toString('hex')}@example.com`;
    await web.send('/auth/send-otp', { email });
    const token = String((await web.send('/auth/verify-otp', { email, code: mailer.lastCodeFor(email) })).body.token);
    const auth = { authorization: `Bearer ${token}` };
    expect((await web.send('/auth/sign-out', undefined, auth)).status).to.equal(200);
    expect((await web.send('/graphql', { query: '{ user { me { email } } }' }, auth)).status).to.equal(401);
  });

  describe('an organization member on the pages (R-WEB-08)', () => {
    /** Registers the cookie's person, founds an organization, and signs in as its member through the cookie. */
    async function memberThroughTheCookie() {
      const { cookie } = await web.signIn(mailer);
      const headers = { cookie, ...web.page };
      expect((await web.send('/graphql', { query: 'mutation { user { register(input: {}) { userId } } }' }, headers)).status).to.equal(200);
      const made = await web.send('/org/v1/organizations', { name: 'Cookie Clinic' }, headers);
      expect(made.status, JSON.stringify(made.body)).to.equal(201);
      const organizationId = (made.body.organization as { organizationId: string }).organizationId;
      const signedIn = await web.send('/org/v1/token', { organizationId }, headers);
      return { cookie, organizationId, signedIn };
    }
    const get = (path: string, headers: Record<string, string>) =>
      fetch(`${service.url}${path}`, { headers }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as Record<string, unknown>,
      }));

    it('POST /org/v1/token through the session cookie sets the organization’s member cookie and answers without the token', async () => {
      const { organizationId, signedIn } = await memberThroughTheCookie();
      expect(signedIn.status, JSON.stringify(signedIn.body)).to.equal(200);
      expect(signedIn.body).to.not.have.property('token');
      expect(signedIn.body).to.include({ organizationId });
      const [pair, ...attributes] = signedIn.setCookie[0]!.split(';').map((a) => a.trim());
      expect(pair).to.match(new RegExp(`^__Host-member-${organizationId}=eyJ[\\w-]+\\.[\\w-]+\\.[\\w-]+$`));
      expect(attributes).to.include.members(['Path=/', 'HttpOnly', 'SameSite=Strict', 'Secure']);
    });

    it('a member route takes the member cookie of the organization X-Organization names, and nothing without that header', async () => {
      const { cookie, organizationId, signedIn } = await memberThroughTheCookie();
      const cookies = `${cookie}; ${signedIn.setCookie[0]!.split(';')[0]}`;
      const key = await get('/org/v1/key', { cookie: cookies, 'x-organization': organizationId });
      expect(key.status, JSON.stringify(key.body)).to.equal(200);
      expect(key.body).to.deep.equal({ state: 'warm', warmUntil: key.body.warmUntil });
      const without = await get('/org/v1/key', { cookie: cookies });
      expect({ status: without.status, code: without.body.code }).to.deep.equal({ status: 401, code: 'unauthenticated' });
    });

    it('a state-changing member call through the member cookie without X-CSRF: 1 is 403 forbidden', async () => {
      const { organizationId, signedIn } = await memberThroughTheCookie();
      const member = signedIn.setCookie[0]!.split(';')[0]!;
      const refused = await web.send('/org/v1/key/seal', undefined, {
        cookie: member,
        'x-organization': organizationId,
        origin: 'http://service.test',
      });
      expect({ status: refused.status, code: refused.body.code }).to.deep.equal({ status: 403, code: 'forbidden' });
    });

    it('sign out clears the member cookies with the session’s, and the member cookie dies with the session', async () => {
      const { cookie, organizationId, signedIn } = await memberThroughTheCookie();
      const member = signedIn.setCookie[0]!.split(';')[0]!;
      const out = await web.send('/auth/sign-out', undefined, { cookie: `${cookie}; ${member}`, ...web.page });
      expect(out.setCookie.map((c) => c.split('=')[0])).to.have.members(['__Host-session', `__Host-member-${organizationId}`]);
      const after = await get('/org/v1/key', { cookie: member, 'x-organization': organizationId });
      expect({ status: after.status, code: after.body.code }).to.deep.equal({ status: 401, code: 'unauthenticated' });
    });
  });

  describe('on plain-http localhost', () => {
    let local: TestService;
    before(async () => {
      local = await startTestService({ domain: { mailer, env: { BASE_URL: 'http://localhost:3000' } } });
    });
    after(() => local?.close());

    it('the cookie is HttpOnly and SameSite=Strict but not Secure, since the browser reaches the service without TLS', async () => {
      const { answer } = await browserClient(local.url, 'http://localhost:3000').signIn(mailer);
      const [pair, ...attributes] = answer.setCookie[0]!.split(';').map((a) => a.trim());
      expect(pair).to.match(/^session=eyJ/);
      expect(attributes).to.include.members(['Path=/', 'HttpOnly', 'SameSite=Strict']);
      expect(attributes).to.not.include('Secure');
    });
  });
});
