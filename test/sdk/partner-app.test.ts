import { expect } from 'chai';
import { generateKeyPair } from 'jose';
import { DssProblem, PartnerApp } from '@dss/sdk';
import { mainBackend } from '../support/databases.js';
import { partnerWorld } from '../partner/support/partner-world.js';
import { REDIRECT_URI } from '../partner/support/test-app.js';

describe(`the SDK's PartnerApp: an app's side of the OAuth 2.0 flow and the partner plane (contract §13, docs/sdk.md; ${mainBackend})`, function () {
  this.timeout(120_000);
  const w = partnerWorld();

  it('authorize pushes the request, complete trades the code, connection and record read; after a revoke the read is a DssProblem 401 and refresh invalid_grant', async () => {
    const app = await PartnerApp.discover({
      baseUrl: w.service.url,
      clientId: w.clientId,
      signingKey: w.app.signingKey,
      kid: w.app.kid,
      dpopKeys: await generateKeyPair('Ed25519'),
      redirectUri: REDIRECT_URI,
    });
    const { user, name } = await w.person();
    const { url, verifier } = await app.authorize(w.manifestId);
    const { callback, requestId } = await w.consent(user, name, url);
    const tokens = await app.complete(callback, verifier);
    expect(tokens.requestId).to.equal(requestId);
    expect((await app.connection(tokens)).request.requestId).to.equal(requestId);
    expect((await app.record(tokens, name)).data).to.deep.equal({ givenName: 'Ann', familyName: 'Example' });
    const refreshed = await app.refresh(tokens.refreshToken!);
    expect(refreshed.requestId).to.equal(requestId);

    await w.d.revoke(user, requestId);
    const refused = await app.connection(refreshed).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(DssProblem).and.to.include({ status: 401, code: 'unauthenticated' });
    expect(await app.refresh(refreshed.refreshToken!).catch((e: unknown) => e)).to.have.property('error', 'invalid_grant');
  });
});
