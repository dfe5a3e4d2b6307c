import { expect } from 'chai';
import { mainBackend } from '../support/databases.js';
import { partnerIdp, SERVICE_CLIENT_ID } from './support/partner-idp.js';
import { partnerWorld } from './support/partner-world.js';
import { browse, CookieJar, REDIRECT_URI } from './support/test-app.js';

describe(`"Continue with <organization>" holds each sign-in to its browser, once, and asks the provider as OIDC has a relying party ask (contract §13; ${mainBackend})`, function () {
  this.timeout(120_000);
  const w = partnerWorld();
  let idp: Awaited<ReturnType<typeof partnerIdp>>;

  before(async () => {
    const jwks = await w.checked('GET', '/oauth/partner-sign-in/jwks', await fetch(`${w.service.url}/oauth/partner-sign-in/jwks`));
    idp = await partnerIdp({ base: w.service.url, jwks: jwks as { keys: object[] } }, (login) => `${login}@acme.example`);
  });
  after(() => idp?.close());

  /** An app of Acme's carrying `issuer` as its identity provider; a browser at its consent step, signed out. */
  async function consentStep(issuer: string) {
    const registered = await w.api.post('/org/v1/apps', w.member, {
      name: 'Acme branch',
      redirectUris: [REDIRECT_URI],
      jwks: w.app.jwks,
      identityProvider: { issuer, clientId: SERVICE_CLIENT_ID },
    });
    expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
    const { url } = await w.app.client(registered.body.clientId as string).push(w.details());
    const jar = new CookieJar();
    const at = await browse(url, jar);
    if (!('interaction' in at)) throw new Error('the authorization went straight back to the app');
    return { uid: at.interaction, jar };
  }

  /** A call of the pages' (X-CSRF) with the browser's cookies, which takes the cookies it sets. */
  async function pages(jar: CookieJar, path: string, body?: unknown, headers: Record<string, string> = { 'x-csrf': '1' }) {
    const response = await fetch(`${w.service.url}${path}`, {
      method: 'POST',
      headers: { cookie: jar.header(), 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    jar.take(response);
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, cookies: response.headers.getSetCookie() };
  }

  it('R-PART-07 asked: the consent step offers the organization’s sign-in; started: the provider is asked silently first, with PKCE S256, state and nonce', async () => {
    const { uid, jar } = await consentStep(idp.issuer);
    const asked = await fetch(`${w.service.url}/oauth/interaction/${uid}/asked`, { headers: { cookie: jar.header() } });
    expect((await w.checked('GET', '/oauth/interaction/{uid}/asked', asked)).partnerSignIn).to.deep.equal({ organization: 'Acme' });
    const started = await pages(jar, `/oauth/interaction/${uid}/partner-sign-in`);
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    expect(started.cookies.join('\n')).to.match(/^partner-sign-in=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=900$/m);
    const to = new URL(started.body.redirectTo as string);
    expect(to.origin + to.pathname).to.equal(`${idp.issuer}/auth`);
    expect(Object.fromEntries(to.searchParams)).to.include({
      client_id: SERVICE_CLIENT_ID,
      response_type: 'code',
      redirect_uri: `${w.service.url}/oauth/partner-sign-in/callback`,
      scope: 'openid email',
      code_challenge_method: 'S256',
      prompt: 'none',
    });
    for (const p of ['state', 'nonce', 'code_challenge']) expect(to.searchParams.get(p), p).to.match(/^[\w-]{43}$/);
  });

  it('R-PART-07 the provider’s answer counts only in the browser that began the sign-in, and only once; a code the provider refuses signs no one in', async () => {
    const a = await consentStep(idp.issuer);
    const state = new URL((await pages(a.jar, `/oauth/interaction/${a.uid}/partner-sign-in`)).body.redirectTo as string).searchParams.get(
      'state',
    )!;
    const answer = { callback: `code=made-up&state=${state}&iss=${encodeURIComponent(idp.issuer)}` };

    const elsewhere = await pages(new CookieJar(), '/oauth/partner-sign-in/complete', answer);
    expect([elsewhere.status, elsewhere.body.code]).to.deep.equal([404, 'not_found']);
    const b = await consentStep(idp.issuer);
    await pages(b.jar, `/oauth/interaction/${b.uid}/partner-sign-in`);
    const another = await pages(b.jar, '/oauth/partner-sign-in/complete', answer);
    expect([another.status, another.body.code], 'another browser’s own sign-in').to.deep.equal([404, 'not_found']);

    // In its own browser, the made-up code is taken to the provider, which refuses it: nobody is signed in.
    const own = await pages(a.jar, '/oauth/partner-sign-in/complete', answer);
    expect([own.status, own.body.code]).to.deep.equal([403, 'forbidden']);
    expect(own.cookies.join('\n')).not.to.match(/^session=/m);
    const again = await pages(a.jar, '/oauth/partner-sign-in/complete', answer);
    expect([again.status, again.body.code], 'used once').to.deep.equal([404, 'not_found']);
  });

  it('R-PART-07 signed out at the provider, the silent answer (login_required) asks again with the provider’s page; any other error ends the sign-in', async () => {
    const { uid, jar } = await consentStep(idp.issuer);
    const silent = new URL((await pages(jar, `/oauth/interaction/${uid}/partner-sign-in`)).body.redirectTo as string);
    const back = await fetch(silent, { redirect: 'manual' });
    const callback = new URL(back.headers.get('location')!);
    expect(callback.searchParams.get('error')).to.equal('login_required');
    const asked = await pages(jar, '/oauth/partner-sign-in/complete', { callback: callback.search.slice(1) });
    expect(asked.status, JSON.stringify(asked.body)).to.equal(200);
    const interactive = new URL(asked.body.redirectTo as string);
    expect(interactive.searchParams.has('prompt'), 'no prompt=none the second time').to.equal(false);
    expect(interactive.searchParams.get('state')).not.to.equal(silent.searchParams.get('state'));
    const denied = { callback: `error=access_denied&state=${interactive.searchParams.get('state')}` };
    expect((await pages(jar, '/oauth/partner-sign-in/complete', denied)).status).to.equal(403);
  });

  it('refuses a call without the pages’ header (403), a link with no sign-in waiting for it (404), an app without a provider (404), a provider that cannot be reached (503)', async () => {
    const { uid, jar } = await consentStep(idp.issuer);
    const bare = await pages(jar, `/oauth/interaction/${uid}/partner-sign-in`, undefined, {});
    expect([bare.status, bare.body.code]).to.deep.equal([403, 'forbidden']);
    const link = await pages(new CookieJar(), '/oauth/partner-sign-in/link', { email: 'ann@acme.example', code: '123456' });
    expect([link.status, link.body.code]).to.deep.equal([404, 'not_found']);

    const { url } = await w.app.client(w.clientId).push(w.details());
    const plainJar = new CookieJar();
    const plain = await browse(url, plainJar);
    if (!('interaction' in plain)) throw new Error('the authorization went straight back to the app');
    expect((await pages(plainJar, `/oauth/interaction/${plain.interaction}/partner-sign-in`)).status).to.equal(404);

    // Nothing listens on port 9; an https issuer at a private address is never even asked.
    for (const issuer of ['http://127.0.0.1:9', 'https://10.255.255.1']) {
      const down = await consentStep(issuer);
      const started = await pages(down.jar, `/oauth/interaction/${down.uid}/partner-sign-in`);
      expect([started.status, started.body.code], issuer).to.deep.equal([503, 'service_unavailable']);
    }
  });
});
