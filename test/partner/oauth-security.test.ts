import { expect } from 'chai';
import { generateKeyPair } from 'jose';
import { createServer, type AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { MANUAL_NAME_SLOT } from '../api/support/driver.js';
import { mainBackend } from '../support/databases.js';
import { partnerWorld } from './support/partner-world.js';
import { browse, CookieJar, REDIRECT_URI } from './support/test-app.js';

/** The OAuth error an oauth4webapi call was refused with (RFC 6749 §5.2, RFC 9449, RFC 9396). */
const errorOf = async (call: Promise<unknown>): Promise<string> => {
  const e = await call.then(
    () => null,
    (x: unknown) => x,
  );
  if (e instanceof oauth.ResponseBodyError || e instanceof oauth.AuthorizationResponseError) return e.error;
  throw new Error(`expected an OAuth error, got ${e instanceof Error ? e.message : 'success'}`);
};

describe(`the partner plane's OAuth 2.0 flow refuses what FAPI 2.0 refuses, with the RFCs' errors (contract §13; ${mainBackend})`, function () {
  this.timeout(120_000);
  const w = partnerWorld();

  it('an authorization request that was not pushed is refused: invalid_request', async () => {
    const url = new URL(`${w.service.url}/oauth/authorize`);
    const params = {
      client_id: w.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    };
    for (const [k, v] of Object.entries({ ...params, ...w.details() })) url.searchParams.set(k, v);
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    const error = location ? new URL(location).searchParams.get('error') : ((await response.json()) as { error: string }).error;
    expect(error).to.equal('invalid_request');
  });

  it('a redirect URI the app did not register is refused at the pushed request: invalid_request', async () => {
    const acme = w.app.client(w.clientId);
    expect(await errorOf(acme.push({ ...w.details(), redirect_uri: 'http://127.0.0.1:9/elsewhere' }))).to.equal('invalid_request');
  });

  it('a pushed request without a PKCE challenge is invalid_request', async () => {
    const acme = w.app.client(w.clientId);
    expect(await errorOf(acme.push({ ...w.details(), code_challenge: '', code_challenge_method: '' }))).to.equal('invalid_request');
  });

  it('an app asking for another organization’s manifest, or none, or naming a request itself, is invalid_authorization_details', async () => {
    const acme = w.app.client(w.clientId);
    const other = await w.api.user();
    const otherOrg = await w.api.organization(other.token, 'Other');
    const otherMember = await w.api.signIn(other.token, otherOrg);
    const created = await w.api.post('/org/v1/manifests', otherMember, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [MANUAL_NAME_SLOT],
    });
    const foreign = (created.body.manifest as { manifestId: string }).manifestId;
    expect(await errorOf(acme.push(w.details(foreign)))).to.equal('invalid_authorization_details');
    expect(await errorOf(acme.push({ authorization_details: JSON.stringify([{ type: 'data_request' }]) }))).to.equal(
      'invalid_authorization_details',
    );
    const naming = [{ type: 'data_request', manifest_id: w.manifestId, request_id: w.manifestId }];
    expect(await errorOf(acme.push({ authorization_details: JSON.stringify(naming) }))).to.equal('invalid_authorization_details');
  });

  it('the code with another verifier is invalid_grant, and a code used once is invalid_grant the second time', async () => {
    const acme = w.app.client(w.clientId);
    const { user, name } = await w.person();
    const first = await acme.push(w.details());
    const { callback } = await w.consent(user, name, first.url);
    expect(await errorOf(acme.tokens(callback, oauth.generateRandomCodeVerifier()))).to.equal('invalid_grant');

    const second = await acme.push(w.details());
    const again = await w.consent(user, name, second.url);
    await acme.tokens(again.callback, second.verifier);
    expect(await errorOf(acme.tokens(again.callback, second.verifier))).to.equal('invalid_grant');
  });

  it('a token request without the DPoP proof of the key the request was pushed with is invalid_grant (RFC 9449 §10)', async () => {
    const acme = w.app.client(w.clientId);
    const { user, name } = await w.person();
    const { url, verifier } = await acme.push(w.details());
    const { callback } = await w.consent(user, name, url);
    const params = oauth.validateAuthResponse(w.app.as, acme.client, callback);
    const auth = w.app.clientAuth();
    const response = await oauth.authorizationCodeGrantRequest(w.app.as, acme.client, auth, params, REDIRECT_URI, verifier, {
      [oauth.allowInsecureRequests]: true,
    });
    expect(await errorOf(oauth.processAuthorizationCodeResponse(w.app.as, acme.client, response))).to.equal('invalid_grant');
  });

  it('the partner plane refuses the token with another key’s proof, without a proof, and a proof sent twice: 401 invalid_token', async () => {
    const acme = w.app.client(w.clientId);
    const { user, name } = await w.person();
    const { url, verifier } = await acme.push(w.details());
    const { callback } = await w.consent(user, name, url);
    const tokens = await acme.tokens(callback, verifier);

    const thief = w.app.client(w.clientId, { dpopKey: await generateKeyPair('Ed25519', { extractable: true }) });
    expect((await thief.read(tokens.access_token, '/partner/v1/connection')).status).to.equal(401);
    const bare = await fetch(`${w.service.url}/partner/v1/connection`, { headers: { authorization: `DPoP ${tokens.access_token}` } });
    expect(bare.status).to.equal(401);

    let sent: Headers | undefined;
    await oauth.protectedResourceRequest(
      tokens.access_token,
      'GET',
      new URL(`${w.service.url}/partner/v1/connection`),
      new Headers(),
      null,
      {
        DPoP: acme.dpop,
        [oauth.allowInsecureRequests]: true,
        [oauth.customFetch]: async (input, init) => {
          sent = new Headers(init.headers);
          return fetch(input, { method: init.method, headers: init.headers });
        },
      },
    );
    const replayed = await fetch(`${w.service.url}/partner/v1/connection`, { headers: sent! });
    expect(replayed.status).to.equal(401);
    expect(((await replayed.json()) as { detail: string }).detail).to.match(/used already/);
  });

  it('an authorization the person denies comes back to the app as access_denied', async () => {
    const acme = w.app.client(w.clientId);
    const { url } = await acme.push(w.details());
    const jar = new CookieJar();
    const first = await browse(url, jar);
    if (!('interaction' in first)) throw new Error('no interaction');
    const denied = await fetch(`${w.service.url}/oauth/interaction/${first.interaction}/deny`, {
      method: 'POST',
      headers: { cookie: jar.header() },
    });
    const { redirectTo } = (await denied.json()) as { redirectTo: string };
    const back = await browse(new URL(redirectTo), jar);
    if (!('callback' in back)) throw new Error('not back at the app');
    expect(await errorOf(Promise.resolve().then(() => oauth.validateAuthResponse(w.app.as, acme.client, back.callback)))).to.equal(
      'access_denied',
    );
  });

  it('an app whose jwksUri names a private address cannot authenticate: the server never connects to it (invalid_client)', async () => {
    // A listener on loopback counts every connection the authorization server would open to fetch the keys.
    let connections = 0;
    const listener = createServer((socket) => (connections++, socket.destroy()));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as AddressInfo).port;
    try {
      const registered = await w.api.post('/org/v1/apps', w.member, {
        name: 'Inside',
        redirectUris: [REDIRECT_URI],
        jwksUri: `https://127.0.0.1:${port}/jwks.json`,
      });
      expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
      const inside = w.app.client(registered.body.clientId as string);
      expect(await errorOf(inside.push(w.details()))).to.equal('invalid_client');
      expect(connections).to.equal(0);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
