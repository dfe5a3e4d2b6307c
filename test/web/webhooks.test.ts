import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { receiver, type Receiver } from '../api/webhooks/webhook-support.js';
import { mainBackend } from '../support/databases.js';
import { openBrowser } from './support/browser.js';
import { overflowsSideways, seriousViolations, signInThroughThePages, startWebService, type WebService } from './support/web-service.js';

describe(`§12 the organization's webhooks page in a browser (R-WEB-60; ${mainBackend})`, function () {
  this.timeout(90_000);
  let web: WebService;
  let page: Page;
  let hook: Receiver;
  let organizationId: string;
  let member: string;
  let founder: { email: string; token: string };

  before(async function () {
    // A receiver on loopback, as in development: WEBHOOK_ALLOW_PRIVATE=1.
    web = await startWebService(this, { webhooks: true, env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
    hook = await receiver();
    founder = await web.api.user();
    organizationId = await web.api.organization(founder.token, 'Acme Bank');
    member = await web.api.signIn(founder.token, organizationId);
    page = await web.browser.context.newPage();
    await signInThroughThePages(web, page, founder.email, `/org/${organizationId}/webhooks`);
  });
  after(async () => {
    await hook?.close();
    await web?.close();
  });

  const log = () => page.getByRole('table', { name: `Delivery log of ${hook.url}` });

  it('adds a webhook for the types ticked and shows its secret once; Send test delivers, the log shows it, Retry sends it again', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).waitFor();
    await page.getByLabel('URL the events are sent to (https)').fill(hook.url);
    for (const type of ['request.accepted', 'record.updated']) await page.getByLabel(new RegExp(`^${type.replace('.', '\\.')}:`)).uncheck();
    await page.getByLabel(/^key\.sealed:/).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = /whsec_[A-Za-z0-9+/]+=*/.exec(await page.getByText('Its signing secret, shown this once').innerText())![0];
    const [webhook] = (await web.api.get('/org/v1/webhooks', member)).body.webhooks as Array<{ webhookId: string; eventTypes: string[] }>;
    expect(webhook!.eventTypes).to.deep.equal(['key.sealed']);
    await page.reload();
    await page.getByRole('heading', { name: hook.url }).waitFor();
    expect(await page.getByText(secret).count(), 'shown once').to.equal(0);

    await page.getByRole('button', { name: 'Send test' }).click();
    await web.eventually(async () => hook.received.length >= 1, 'the test event');
    expect(new Webhook(secret).verify(hook.received[0]!.body, hook.received[0]!.headers)).to.include({ type: 'webhook.test' });
    await page.getByRole('button', { name: 'Refresh the log' }).click();
    await log().getByRole('cell', { name: 'Delivered (HTTP 204)' }).waitFor();

    await log().getByRole('button', { name: 'Retry webhook.test, attempt 1' }).click();
    await web.eventually(async () => hook.received.length >= 2, 'the retry');
    await web.eventually(async () => {
      await page.getByRole('button', { name: 'Refresh the log' }).click();
      return (await log().getByRole('row').count()) === 3;
    }, 'both attempts in the log');
    expect(hook.received[1]!.headers['webhook-id']).to.equal(hook.received[0]!.headers['webhook-id']);
  });

  it('a member without member_manage is told so, and sees no webhook nor the form', async () => {
    const reader = await web.api.user();
    await web.api.put(`/org/v1/members/${encodeURIComponent(reader.email)}`, member, { permissions: ['request_read'] });
    // Another browser: their own session.
    const other = await openBrowser();
    try {
      const theirs = await other.context.newPage();
      await signInThroughThePages({ ...web, browser: other }, theirs, reader.email, `/org/${organizationId}/webhooks`);
      await theirs.getByText('Only a member who may manage members sees and adds webhooks.').waitFor();
      expect(await theirs.getByRole('button', { name: 'Add webhook' }).count()).to.equal(0);
      expect(await theirs.getByText(hook.url).count()).to.equal(0);
    } finally {
      await other.close();
    }
  });

  it('axe-core finds no serious or critical violation, and at 375 px nothing scrolls sideways', async () => {
    await page.goto(`${web.base}/org/${organizationId}/webhooks`);
    await log().waitFor();
    expect(await seriousViolations(page)).to.deep.equal([]);
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      expect(await overflowsSideways(page)).to.equal(false);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
