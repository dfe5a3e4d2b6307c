import { expect } from 'chai';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Reply } from '../../support/http.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';
import { orgClient, problem, type OrgClient } from './org-client.js';

describe(`GET /org/v1/apps: the apps the settings page lists (R-WEB-44; ${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let owner: { email: string; token: string };
  let member: string;

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    owner = await api.user();
    member = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
  });
  after(() => service.close());

  it('lists the apps registered, the earliest first, each {clientId, name, registeredAt}; only its own organization’s', async () => {
    expect((await api.get('/org/v1/apps', member)).body).to.deep.equal({ apps: [] });
    const first = (await api.post('/org/v1/apps', member, { name: 'Onboarding portal' })).body;
    const second = (await api.post('/org/v1/apps', member, { name: 'Mobile app' })).body;
    const listed = await api.get('/org/v1/apps', member);
    expect(listed.status).to.equal(200);
    const apps = listed.body.apps as Array<{ clientId: string; name: string; registeredAt: string }>;
    expect(apps.map(({ clientId, name }) => ({ clientId, name }))).to.deep.equal([
      { clientId: first.clientId, name: 'Onboarding portal' },
      { clientId: second.clientId, name: 'Mobile app' },
    ]);
    for (const app of apps) expect(Number.isNaN(Date.parse(app.registeredAt)), app.registeredAt).to.equal(false);

    const rival = await api.user();
    const rivalMember = await api.signIn(rival.token, await api.organization(rival.token, 'Rival'));
    expect((await api.get('/org/v1/apps', rivalMember)).body).to.deep.equal({ apps: [] });
  });

  it('needs member_manage (403), a member token (401), and takes no query parameters (400)', async () => {
    const reader = await api.user();
    expect((await api.put(`/org/v1/members/${reader.email}`, member, { permissions: ['request_read'] })).status).to.equal(200);
    const orgs = (await api.get('/org/v1/organizations', reader.token)).body.organizations as Array<{ organizationId: string }>;
    const readerToken = await api.signIn(reader.token, orgs[0]!.organizationId);
    expect(problem(await api.get('/org/v1/apps', readerToken))).to.deep.equal({ status: 403, code: 'forbidden' });
    expect(problem(await api.get('/org/v1/apps', owner.token))).to.deep.equal({ status: 401, code: 'unauthenticated' });
    expect(problem(await api.get('/org/v1/apps'))).to.deep.equal({ status: 401, code: 'unauthenticated' });
    expect(problem(await api.get('/org/v1/apps?page=2', member))).to.deep.equal({ status: 400, code: 'invalid_request' });
  });
});

/** A public signing key of the app, as its owner exports it; `private` adds what must never be sent. */
async function signingKey(alg: 'EdDSA' | 'ES256' | 'PS256', kid: string, options: { private?: boolean } = {}): Promise<JWK> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { ...(await exportJWK(options.private ? privateKey : publicKey)), kid };
}

/** Status, code and the detail, which names the field. */
const refusal = (r: Reply) => ({ status: r.status, code: r.body.code, detail: String(r.body.detail) });

describe(`POST /org/v1/apps: an app as an OAuth client, with its redirect URIs and keys (contract §13; ${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let organizationId: string;
  let member: string;
  let keys: JWK[];
  const redirectUris = ['https://portal.acme.example/oauth/callback', 'https://portal.acme.example/oauth/callback?lang=de'];

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    const owner = await api.user();
    organizationId = await api.organization(owner.token, 'Acme');
    member = await api.signIn(owner.token, organizationId);
    keys = [await signingKey('EdDSA', 'ed'), await signingKey('ES256', 'ec'), await signingKey('PS256', 'rsa')];
  });
  after(() => service.close());

  const register = (body: Record<string, unknown>) => api.post('/org/v1/apps', member, { name: 'Portal', ...body });

  it('R-ORG-18 201 with redirectUris and jwks, or jwksUri; GET /org/v1/apps shows them, and nothing of the kind for an app without', async () => {
    const plain = await register({});
    expect(plain.status).to.equal(201);
    expect(plain.body).to.have.keys('clientId', 'name');
    const byValue = await register({ redirectUris, jwks: { keys } });
    expect(byValue.status, JSON.stringify(byValue.body)).to.equal(201);
    expect(byValue.body).to.deep.equal({ clientId: byValue.body.clientId, name: 'Portal', redirectUris, jwks: { keys } });
    const byUrl = await register({ redirectUris: [redirectUris[0]], jwksUri: 'https://portal.acme.example/.well-known/jwks.json' });
    expect(byUrl.status, JSON.stringify(byUrl.body)).to.equal(201);
    expect(byUrl.body).to.deep.equal({
      clientId: byUrl.body.clientId,
      name: 'Portal',
      redirectUris: [redirectUris[0]],
      jwksUri: 'https://portal.acme.example/.well-known/jwks.json',
    });

    const apps = ((await api.get('/org/v1/apps', member)).body.apps as Array<Record<string, unknown>>).map(({ registeredAt, ...app }) => {
      expect(registeredAt).to.be.a('string');
      return app;
    });
    expect(apps).to.deep.equal([plain.body, byValue.body, byUrl.body]);
  });

  it('R-ORG-16 each redirect URI is an https URL without fragment or credentials, once; http is refused without OAUTH_ALLOW_LOOPBACK_HTTP, loopback too', async () => {
    const jwks = { keys: [keys[0]] };
    const cases: Array<[unknown, RegExp]> = [
      [['http://portal.acme.example/cb'], /^redirectUris\[0\] must be an https URL$/],
      [['https://portal.acme.example/cb', 'http://127.0.0.1:8080/cb'], /^redirectUris\[1\] must be an https URL$/],
      [['http://localhost:8080/cb'], /^redirectUris\[0\] must be an https URL$/],
      [['https://portal.acme.example/cb#done'], /^redirectUris\[0\] must not have a fragment/],
      [['https://ann:pw@portal.acme.example/cb'], /^redirectUris\[0\] must carry no user name or password/],
      [['/oauth/callback'], /^redirectUris\[0\] must be an absolute URL/],
      [['https://portal.acme.example/a b'], /^redirectUris\[0\] .*without spaces/],
      [['com.acme.portal:/cb'], /^redirectUris\[0\] must be an https URL$/],
      [[`https://portal.acme.example/${'a'.repeat(2048)}`], /^redirectUris\[0\] is longer than 2048 characters/],
      [['https://portal.acme.example/cb', 'https://portal.acme.example/cb'], /^redirectUris\[1\] is listed twice/],
      [[], /^redirectUris must hold 1 to 10 URLs/],
      [Array.from({ length: 11 }, (_, i) => `https://portal.acme.example/cb/${i}`), /^redirectUris must hold 1 to 10 URLs/],
      ['https://portal.acme.example/cb', /^redirectUris must be an array/],
      [[42], /^redirectUris\[0\] must be a string/],
    ];
    for (const [uris, detail] of cases) {
      const r = refusal(await register({ redirectUris: uris, jwks }));
      expect(r, JSON.stringify(uris)).to.deep.include({ status: 400, code: 'invalid_request' });
      expect(r.detail, JSON.stringify(uris)).to.match(detail);
    }
  });

  it('R-ORG-17 a private key is refused, asking for the public key only', async () => {
    for (const alg of ['EdDSA', 'ES256', 'PS256'] as const) {
      const r = refusal(await register({ redirectUris, jwks: { keys: [keys[0], await signingKey(alg, 'mine', { private: true })] } }));
      expect(r, alg).to.deep.include({ status: 400, code: 'invalid_request' });
      expect(r.detail, alg).to.match(/^jwks\.keys\[1\] is a private key \(it has "d"\): send the public key only$/);
    }
    const secret = { kty: 'oct', k: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0', kid: 'hmac' };
    expect(refusal(await register({ redirectUris, jwks: { keys: [secret] } })).detail).to.match(
      /jwks\.keys\[0\] is a private key.*public key only/,
    );
  });

  it('R-ORG-17 jwks holds 1 to 5 public signing keys of the allowed types, each with its own kid, at most 8 KiB; else 400 naming the field', async () => {
    const [ed, ec, rsa] = keys as [JWK, JWK, JWK];
    const p384 = { ...(await exportJWK((await generateKeyPair('ES384', { extractable: true })).publicKey)), kid: 'p384' };
    const cases: Array<[unknown, RegExp]> = [
      [{ keys: [{ ...ed, kty: 'EC2' }] }, /^jwks\.keys\[0\]\.kty must be OKP \(crv Ed25519\), EC \(crv P-256\) or RSA$/],
      [{ keys: [p384] }, /^jwks\.keys\[0\]\.crv must be P-256 for kty EC$/],
      [{ keys: [ed, ec, rsa, { ...ed, kid: 'a' }, { ...ed, kid: 'b' }, { ...ed, kid: 'c' }] }, /^jwks\.keys must hold 1 to 5 keys$/],
      [{ keys: [] }, /^jwks\.keys must hold 1 to 5 keys$/],
      [{ keys: [ed, { ...ec, kid: 'ed' }] }, /^jwks\.keys\[1\]\.kid "ed" is another key's kid too$/],
      [{ keys: [{ ...ed, kid: undefined }] }, /^jwks\.keys\[0\]\.kid is required/],
      [
        { keys: [{ ...generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }), kid: 'small' }] },
        /^jwks\.keys\[0\]\.n must be a modulus of at least 2048 bits$/,
      ],
      [{ keys: [{ ...ed, x: 'AAAA' }] }, /^jwks\.keys\[0\] is not a valid OKP public key$/],
      [{ keys: [{ ...ec, alg: 'RS256' }] }, /^jwks\.keys\[0\]\.alg must be ES256 for kty EC$/],
      [{ keys: [{ ...ed, use: 'enc' }] }, /^jwks\.keys\[0\]\.use must be sig/],
      [{ keys: [{ ...rsa, x5c: ['MIIB'] }] }, /^jwks\.keys\[0\]\.x5c is not taken/],
      [{ keys: [ed, { ...ec, kid: 'x'.repeat(200), x5t: 'a'.repeat(8000) }] }, /^jwks must be at most 8 KiB of JSON$/],
      [{ keys: ed }, /^jwks\.keys must be an array/],
      [[ed], /^jwks must be a JWK Set/],
    ];
    for (const [jwks, detail] of cases) {
      const r = refusal(await register({ redirectUris, jwks }));
      expect(r, String(detail)).to.deep.include({ status: 400, code: 'invalid_request' });
      expect(r.detail, String(detail)).to.match(detail);
    }
  });

  it('R-ORG-17 an OAuth client has exactly one of jwks and jwksUri, and only with redirectUris; jwksUri is https', async () => {
    const jwks = { keys: [keys[0]] };
    const jwksUri = 'https://portal.acme.example/jwks.json';
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ redirectUris, jwks, jwksUri }, /^jwks and jwksUri: send one of them, not both$/],
      [{ redirectUris }, /^jwks or jwksUri is required with redirectUris/],
      [{ jwks }, /^jwks is taken only with redirectUris$/],
      [{ jwksUri }, /^jwksUri is taken only with redirectUris$/],
      [{ redirectUris, jwksUri: 'http://portal.acme.example/jwks.json' }, /^jwksUri must be an https URL$/],
      [{ redirectUris, jwksUri: 'https://portal.acme.example/jwks.json#k1' }, /^jwksUri must not have a fragment/],
      [{ redirectUris, jwks, clientSecret: 'hunter2' }, /clientSecret/],
    ];
    for (const [body, detail] of cases) {
      const r = refusal(await register(body));
      expect(r, String(detail)).to.deep.include({ status: 400, code: 'invalid_request' });
      expect(r.detail, String(detail)).to.match(detail);
    }
    const apps = (await api.get('/org/v1/apps', member)).body.apps as unknown[];
    expect(apps.length, 'nothing refused was registered').to.equal(3);
  });

  it('R-ORG-18 oauthClient answers the client the authorization server knows by its id; null for an app without redirect URIs, an unknown or a malformed id', async () => {
    const organizations = service.domain!.organizations;
    const client = (await register({ redirectUris, jwks: { keys: [keys[0]] } })).body;
    const plain = (await register({})).body;
    expect(await organizations.oauthClient(String(client.clientId).toUpperCase())).to.deep.equal({
      clientId: client.clientId,
      organizationId,
      organizationName: 'Acme',
      name: 'Portal',
      redirectUris,
      jwks: { keys: [keys[0]] },
    });
    expect(await organizations.oauthClient(String(plain.clientId))).to.equal(null);
    expect(await organizations.oauthClient(randomUUID())).to.equal(null);
    expect(await organizations.oauthClient('not-a-client')).to.equal(null);
  });

  it('R-ORG-19 an OAuth client may carry its organization’s identity provider {issuer, clientId}: shown, and handed to the authorization server', async () => {
    const identityProvider = { issuer: 'https://id.acme.example/realms/customers', clientId: 'data-sharing' };
    const r = await register({ redirectUris, jwks: { keys: [keys[0]] }, identityProvider });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.identityProvider).to.deep.equal(identityProvider);
    const listed = (await api.get('/org/v1/apps', member)).body.apps as Array<Record<string, unknown>>;
    expect(listed.find((app) => app.clientId === r.body.clientId)?.identityProvider).to.deep.equal(identityProvider);
    expect((await service.domain!.organizations.oauthClient(String(r.body.clientId)))?.identityProvider).to.deep.equal(identityProvider);
  });

  it('R-ORG-19 the identity provider’s issuer is https without query, its clientId 1 to 255 characters, nothing else, and only with redirectUris', async () => {
    const jwks = { keys: [keys[0]] };
    const issuer = 'https://id.acme.example';
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ jwks, identityProvider: { issuer, clientId: 'dss' } }, /^jwks is taken only with redirectUris$/],
      [{ identityProvider: { issuer, clientId: 'dss' } }, /^identityProvider is taken only with redirectUris$/],
      [
        { redirectUris, jwks, identityProvider: { issuer: 'http://id.acme.example', clientId: 'dss' } },
        /^identityProvider\.issuer must be an https URL$/,
      ],
      [
        { redirectUris, jwks, identityProvider: { issuer: 'http://127.0.0.1:8080', clientId: 'dss' } },
        /^identityProvider\.issuer must be an https URL$/,
      ],
      [
        { redirectUris, jwks, identityProvider: { issuer: `${issuer}?tenant=1`, clientId: 'dss' } },
        /^identityProvider\.issuer must not have a query/,
      ],
      [{ redirectUris, jwks, identityProvider: { issuer, clientId: '' } }, /identityProvider\.clientId/],
      [{ redirectUris, jwks, identityProvider: { issuer, clientId: 'x'.repeat(256) } }, /^identityProvider\.clientId is longer than 255/],
      [{ redirectUris, jwks, identityProvider: { issuer } }, /identityProvider\.clientId/],
      [{ redirectUris, jwks, identityProvider: { issuer, clientId: 'dss', clientSecret: 'hunter2' } }, /clientSecret/],
      [{ redirectUris, jwks, identityProvider: issuer }, /identityProvider/],
    ];
    const before = ((await api.get('/org/v1/apps', member)).body.apps as unknown[]).length;
    for (const [body, detail] of cases) {
      const r = refusal(await register(body));
      expect(r, String(detail)).to.deep.include({ status: 400, code: 'invalid_request' });
      expect(r.detail, String(detail)).to.match(detail);
    }
    expect(((await api.get('/org/v1/apps', member)).body.apps as unknown[]).length, 'nothing refused was registered').to.equal(before);
  });

  describe('with OAUTH_ALLOW_LOOPBACK_HTTP=1', function () {
    let loopback: TestService;
    let loopbackApi: OrgClient;
    let loopbackMember: string;

    before(async () => {
      loopback = await startTestService({ domain: { mailer, env: { OAUTH_ALLOW_LOOPBACK_HTTP: '1' } } });
      loopbackApi = orgClient(loopback.url, mailer);
      const owner = await loopbackApi.user();
      loopbackMember = await loopbackApi.signIn(owner.token, await loopbackApi.organization(owner.token, 'Acme'));
    });
    after(() => loopback?.close());

    it('R-ORG-16 a native app’s loopback http redirect URIs are accepted (RFC 8252 §7.3); any other http, and an http jwksUri, still are not', async () => {
      const jwks = { keys: [keys[0]] };
      const uris = ['http://127.0.0.1:53682/callback', 'http://[::1]:53682/callback', 'http://localhost:53682/callback'];
      const r = await loopbackApi.post('/org/v1/apps', loopbackMember, { name: 'CLI', redirectUris: uris, jwks });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      expect(r.body.redirectUris).to.deep.equal(uris);
      for (const uri of ['http://portal.acme.example/cb', 'http://127.0.0.2:53682/cb', 'http://app.localhost:53682/cb']) {
        const refused = refusal(await loopbackApi.post('/org/v1/apps', loopbackMember, { name: 'CLI', redirectUris: [uri], jwks }));
        expect(refused, uri).to.deep.include({ status: 400, code: 'invalid_request' });
        expect(refused.detail, uri).to.match(/^redirectUris\[0\] must be an https URL, or http on a loopback address/);
      }
      const http = refusal(
        await loopbackApi.post('/org/v1/apps', loopbackMember, {
          name: 'CLI',
          redirectUris: uris,
          jwksUri: 'http://127.0.0.1:53682/jwks.json',
        }),
      );
      expect(http.detail).to.match(/^jwksUri must be an https URL$/);
    });
  });
});
