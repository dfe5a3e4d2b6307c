import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { User } from '../api/support/driver.js';
import { acmeOnboarding, type sdkApp } from '../partner/support/sdk-app.js';
import { mainBackend } from '../support/databases.js';
import { codeFromMailbox, seriousViolations, startWebService, type WebService } from './support/web-service.js';

describe(`§13 an app's authorization in a browser: the hosted consent step, the partner plane, revoking (R-WEB-70; ${mainBackend})`, function () {
  this.timeout(120_000);
  let web: WebService;
  let page: Page;
  let ann: User;
  let app: Awaited<ReturnType<typeof sdkApp>>;

  before(async function () {
    web = await startWebService(this, { env: { OAUTH_ALLOW_LOOPBACK_HTTP: '1' } });
    ({ app, ann } = await acmeOnboarding(web));
    page = await web.browser.context.newPage();
  });
  after(async () => {
    await app?.close();
    await web?.close();
  });

  it('the app (a server on the SDK) pushes its request, the person signs in and shares on the hosted page, the app reads, the person sees the read and revokes: the app is cut off', async () => {
    await page.goto(`${app.origin}/start`);
    await page.waitForURL(/\/sign-in/);
    await page.getByLabel('Email address').fill(ann.email);
    await page.getByRole('button', { name: 'Send code' }).click();
    // The code step shows once the code is sent: only then is it in the mailbox (the older one there is used).
    await page.getByLabel('Code from the mail').waitFor();
    await page.getByLabel('Code from the mail').fill(await codeFromMailbox(web, ann.email));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/oauth\/interaction\//);

    await page.getByText('Acme onboarding sent you here to ask for your data.').waitFor();
    expect(await page.getByRole('button', { name: 'Continue to Acme onboarding' }).isDisabled(), 'not before accepting').to.equal(true);
    expect(await seriousViolations(page)).to.deep.equal([]);
    await page.getByLabel('My passport name').check();
    await page.getByRole('button', { name: 'Accept' }).click();
    await page.getByRole('button', { name: 'Continue to Acme onboarding' }).click();

    // Back at the app, which took its tokens (the iss parameter checked by the SDK) and read the partner plane.
    const connected = page.getByText(/^Connected to request [0-9a-f-]{36}\. Read: My passport name v1$/);
    await connected.waitFor();
    const requestId = /request ([0-9a-f-]{36})/.exec(await connected.innerText())![1]!;

    await page.goto(`${web.base}/requests/${requestId}`);
    await page.getByRole('heading', { name: 'What Acme Bank’s app read' }).waitFor();
    await page.getByText('Acme Bank’s app read your version 1 of “My passport name”.').first().waitFor();
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.getByRole('button', { name: 'Revoke' }).waitFor({ state: 'detached' });

    await page.goto(`${app.origin}/read`);
    await page.getByText('Read refused: 401').waitFor();
    await page.goto(`${app.origin}/refresh`);
    await page.getByText('Refresh refused: invalid_grant').waitFor();
    expect(web.cspErrors).to.deep.equal([]);
  });
});
