import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { driver, MANUAL_NAME_SLOT, type User } from '../api/support/driver.js';
import { REDIRECT_URI, testApp } from '../partner/support/test-app.js';
import { mainBackend } from '../support/databases.js';
import { codeFromMailbox, seriousViolations, startWebService, type WebService } from './support/web-service.js';

describe(`§13 an app's authorization in a browser: the hosted consent step, the partner plane, revoking (R-WEB-70; ${mainBackend})`, function () {
  this.timeout(120_000);
  let web: WebService;
  let page: Page;
  let ann: User;
  let app: Awaited<ReturnType<typeof testApp>>;
  let clientId: string;
  let manifestId: string;
  let nameDoc: string;

  before(async function () {
    web = await startWebService(this, { env: { OAUTH_ALLOW_LOOPBACK_HTTP: '1' } });
    const founder = await web.api.user();
    const member = await web.api.signIn(founder.token, await web.api.organization(founder.token, 'Acme Bank'));
    const d = driver({ api: () => web.api, member: () => member });
    manifestId = (await d.manifest([{ ...MANUAL_NAME_SLOT, required: true }], 'P90D', { name: 'Open an account' })).manifestId;
    app = await testApp(web.base);
    const registered = await web.api.post('/org/v1/apps', member, {
      name: 'Acme onboarding',
      redirectUris: [REDIRECT_URI],
      jwks: app.jwks,
    });
    expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
    clientId = registered.body.clientId as string;
    ann = await web.api.user();
    nameDoc = await d.createDoc(ann, {
      name: 'My passport name',
      schemaRef: `${web.base}/schemas/core/PersonFullName.json`,
      data: { givenName: 'Ann', familyName: 'Lee' },
    });
    page = await web.browser.context.newPage();
  });
  after(async () => {
    await web?.close();
  });

  it('the app pushes its request, the person signs in and shares on the hosted page, the app reads, the person sees the read and revokes: the app is cut off', async () => {
    const acme = app.client(clientId);
    const { url, verifier } = await acme.push({
      authorization_details: JSON.stringify([{ type: 'data_request', manifest_id: manifestId }]),
    });
    // The app's redirect URI is its own server's: the browser's arrival there is caught, with its query.
    let callback: URL | undefined;
    await page.route(`${new URL(REDIRECT_URI).origin}/**`, async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the app' });
    });

    await page.goto(url.toString());
    await page.waitForURL(/\/sign-in/);
    await page.getByLabel('Email address').fill(ann.email);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code from the mail').fill(await codeFromMailbox(web, ann.email));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/oauth\/interaction\//);

    await page.getByText('Acme onboarding sent you here to ask for your data.').waitFor();
    expect(await page.getByRole('button', { name: 'Continue to Acme onboarding' }).isDisabled(), 'not before accepting').to.equal(true);
    expect(await seriousViolations(page)).to.deep.equal([]);
    await page.getByLabel('My passport name').check();
    await page.getByRole('button', { name: 'Accept' }).click();
    await page.getByRole('button', { name: 'Continue to Acme onboarding' }).click();
    await page.getByText('back at the app').waitFor();
    expect(callback?.searchParams.get('iss')).to.equal(web.base);

    const tokens = await acme.tokens(callback!, verifier);
    const requestId = tokens.authorization_details?.[0]?.request_id as string;
    expect((await acme.read(tokens.access_token, `/partner/v1/records/${nameDoc}`)).status).to.equal(200);

    await page.goto(`${web.base}/requests/${requestId}`);
    await page.getByRole('heading', { name: 'What Acme Bank’s app read' }).waitFor();
    await page.getByText('Acme Bank’s app read your version 1 of “My passport name”.').first().waitFor();
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.getByRole('button', { name: 'Revoke' }).waitFor({ state: 'detached' });

    expect((await acme.read(tokens.access_token, '/partner/v1/connection')).status).to.equal(401);
    expect(await acme.refresh(tokens.refresh_token!).catch((e: unknown) => e)).to.have.property('error', 'invalid_grant');
    expect(web.cspErrors).to.deep.equal([]);
  });
});
