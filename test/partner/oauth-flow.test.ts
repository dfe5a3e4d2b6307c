import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { mainBackend } from '../support/databases.js';
import { OPERATIONS_CHECKED_ELSEWHERE } from '../api/support/documented.js';
import { partnerWorld } from './support/partner-world.js';
import { browse, CookieJar } from './support/test-app.js';

const RECEIPTS = 'query { user { receipts { resourceId version organizationId clientId } } }';

describe(`the partner plane's OAuth 2.0 flow, an app and a person over HTTP (contract §13; ${mainBackend})`, function () {
  this.timeout(120_000);
  const w = partnerWorld();

  it('PAR, the person approves, the app gets DPoP-bound tokens naming the request, reads the partner plane, and each record read is a receipt on the person’s side', async () => {
    const acme = w.app.client(w.clientId);
    const { user, name } = await w.person();
    const { url, verifier } = await acme.push(w.details());
    const { callback, requestId } = await w.consent(user, name, url);
    expect(callback.searchParams.get('iss'), 'RFC 9207: the issuer comes back with the code').to.equal(w.service.url);

    const tokens = await acme.tokens(callback, verifier);
    expect({ type: tokens.token_type, expiresIn: tokens.expires_in, refresh: typeof tokens.refresh_token }).to.deep.equal({
      type: 'dpop',
      expiresIn: 300,
      refresh: 'string',
    });
    expect(tokens.authorization_details).to.deep.equal([{ type: 'data_request', manifest_id: w.manifestId, request_id: requestId }]);
    expect(decodeJwt(tokens.access_token).sub, 'a pairwise subject, never the user id').to.match(/^s_[A-Za-z0-9_-]{22}$/);

    const connection = await w.checked('GET', '/partner/v1/connection', await acme.read(tokens.access_token, '/partner/v1/connection'));
    expect(connection.request).to.include({ requestId, initiatedBy: 'recipient', initiatingClientId: w.clientId });

    const record = await w.checked(
      'GET',
      '/partner/v1/records/{resourceId}',
      await acme.read(tokens.access_token, `/partner/v1/records/${name}`),
    );
    expect(record).to.deep.include({ resourceId: name, version: 1, data: { givenName: 'Ann', familyName: 'Example' } });
    const receipts = w.d.ok(await w.d.gql(user, RECEIPTS)).user.receipts as Array<Record<string, unknown>>;
    expect(receipts.map((r) => ({ resourceId: r.resourceId, version: r.version, clientId: r.clientId }))).to.deep.equal([
      { resourceId: name, version: 1, clientId: w.clientId },
    ]);

    const refreshed = await acme.refresh(tokens.refresh_token!);
    expect(refreshed.authorization_details).to.deep.equal(tokens.authorization_details);
  });

  it('R-CREC-02 the approval on the hosted page is a consent transition of its own: AppAuthorized, with a receipt naming the app', async () => {
    const acme = w.app.client(w.clientId);
    const { user, name } = await w.person();
    const { requestId } = await w.consent(user, name, (await acme.push(w.details())).url);
    // The same connection given to the app again: no new request, a new approval, a new receipt.
    await w.consent(user, name, (await acme.push(w.details())).url);
    const receipts = await w.receipts(requestId, 4);
    expect(receipts.map((jws) => decodeJwt(jws)).map((p) => [(p.event as { type: string }).type, p.app])).to.deep.equal([
      ['RequestAccepted', w.clientId],
      ['SlotGranted', w.clientId],
      ['AppAuthorized', w.clientId],
      ['AppAuthorized', w.clientId],
    ]);
  });

  it('once the person revokes, the next partner-plane call is 401 with a DPoP challenge and the refresh is invalid_grant', async () => {
    const acme = w.app.client(w.clientId);
    const { user, name } = await w.person();
    const { url, verifier } = await acme.push(w.details());
    const { callback, requestId } = await w.consent(user, name, url);
    const tokens = await acme.tokens(callback, verifier);
    expect((await acme.read(tokens.access_token, '/partner/v1/connection')).status).to.equal(200);

    await w.d.revoke(user, requestId);
    const after = await acme.read(tokens.access_token, '/partner/v1/connection');
    expect(after.status).to.equal(401);
    expect(after.headers.get('www-authenticate')).to.match(/^DPoP error="invalid_token"/);
    const refused = await acme.refresh(tokens.refresh_token!).catch((e: unknown) => e);
    expect(refused).to.have.property('error', 'invalid_grant');
  });

  it('the hosted page learns what is asked, the person may deny (access_denied), and the metadata says FAPI 2.0: each answer as GET /openapi.json documents it', async () => {
    const metadata = await w.checked(
      'GET',
      '/.well-known/oauth-authorization-server',
      await fetch(`${w.service.url}/.well-known/oauth-authorization-server`),
    );
    expect(metadata).to.include({
      issuer: w.service.url,
      require_pushed_authorization_requests: true,
      authorization_response_iss_parameter_supported: true,
    });
    expect(metadata.code_challenge_methods_supported).to.deep.equal(['S256']);

    const acme = w.app.client(w.clientId);
    const { url } = await acme.push(w.details());
    const jar = new CookieJar();
    const first = await browse(url, jar);
    if (!('interaction' in first)) throw new Error('no interaction');
    const page = `${w.service.url}/oauth/interaction/${first.interaction}`;
    const asked = await w.checked(
      'GET',
      '/oauth/interaction/{uid}/asked',
      await fetch(`${page}/asked`, { headers: { cookie: jar.header() } }),
    );
    expect(asked).to.deep.include({ app: { clientId: w.clientId, name: 'Acme onboarding' }, manifestId: w.manifestId });
    const denied = await w.checked(
      'POST',
      '/oauth/interaction/{uid}/deny',
      await fetch(`${page}/deny`, { method: 'POST', headers: { cookie: jar.header() } }),
    );
    const back = await browse(new URL(denied.redirectTo as string), jar);
    if (!('callback' in back)) throw new Error('not back at the app');
    expect(Object.fromEntries(back.callback.searchParams)).to.include({ error: 'access_denied', iss: w.service.url });

    expect([...w.documented.checked].sort(), 'every operation test/api/openapi-typed.test.ts leaves to this flow').to.deep.equal(
      [...OPERATIONS_CHECKED_ELSEWHERE].sort(),
    );
  });
});
