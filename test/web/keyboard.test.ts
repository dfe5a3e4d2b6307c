import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { driver, MANUAL_NAME_SLOT, type Manifest, type User } from '../api/support/driver.js';
import { mainBackend } from '../support/databases.js';
import {
  codeFromMailbox,
  overflowsSideways,
  reachByKeyboard,
  seriousViolations,
  startWebService,
  type WebService,
} from './support/web-service.js';

const name = (givenName: string) => ({ givenName, familyName: 'Example' });
/** Tab presses allowed on the longest pages (a request with its copies, proposals and history). */
const LONG = 160;

/**
 * Every action of contract §11 reached by keyboard with a visible focus, and the states a page only
 * reaches after a click (a form open, an outcome shown) free of serious axe violations and of sideways
 * scrolling at 375 px. One person is both the organization's founder and the recipient of its
 * requests, so one session sees both sides.
 */
describe(`§11 keyboard, axe and 375 px across the pages (R-WEB-13, R-WEB-14; ${mainBackend})`, function () {
  this.timeout(120_000);
  let web: WebService;
  let page: Page;
  let founder: User;
  let token: string;
  let orgId: string;
  let manifest: Manifest;
  let nameDoc: string;
  const requests = { active: '', suspended: '', pending: '' };
  const d = driver({ api: () => web.api, member: () => token });
  const slotId = () => manifest.slots[0]!.slotId;

  before(async function () {
    web = await startWebService(this, { workers: true });
    founder = await web.api.user();
    orgId = await web.api.organization(founder.token, 'Acme Bank');
    token = await web.api.signIn(founder.token, orgId);
    manifest = await d.manifest([MANUAL_NAME_SLOT], 'P30D', { name: 'Proof of name' });
    nameDoc = await d.createDoc(founder, { name: 'Name', schemaRef: `${web.base}/schemas/core/PersonFullName.json`, data: name('Ann') });
    requests.active = await d.connected(manifest.manifestId, founder, { [slotId()]: [nameDoc] });
    requests.suspended = await d.connected(manifest.manifestId, founder, { [slotId()]: [nameDoc] });
    await d.suspend(founder, requests.suspended);
    requests.pending = await d.send(manifest.manifestId, founder.email);
    page = await web.browser.context.newPage();
  });
  after(() => web?.close());

  const open = async (path: string) => {
    await page.goto(`${web.base}${path}`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await page.waitForFunction(() => !document.body.innerText.includes('Loading…'));
  };

  /** No serious axe violation as the page stands, and no sideways scroll once it is 375 px wide. */
  async function clean(what: string): Promise<void> {
    expect(await seriousViolations(page), what).to.deep.equal([]);
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      expect(await overflowsSideways(page), `${what} at 375 px`).to.equal(false);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  }

  it('the sign-in code step is clean at 375 px and Sign in is reached by keyboard', async () => {
    await page.goto(`${web.base}/sign-in`);
    await page.getByLabel('Email address').fill(founder.email);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code from the mail').waitFor();
    await clean('the code step');
    await reachByKeyboard(page, 'button', 'Sign in');
    await page.getByLabel('Code from the mail').fill(await codeFromMailbox(web, founder.email));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${web.base}/requests`);
  });

  it('the person’s request pages: Reject, Withdraw, Suspend, Resume and a generated field reached; the "Add a new …" form is clean', async () => {
    await open(`/requests/${requests.pending}`);
    await reachByKeyboard(page, 'button', 'Reject', LONG);
    await page.getByRole('button', { name: /^Add a new .* for Name$/ }).click();
    await page.getByLabel('Given name').waitFor();
    await clean('the "Add a new …" form');
    await reachByKeyboard(page, 'textbox', 'Given name', LONG);

    await open(`/requests/${requests.active}`);
    await reachByKeyboard(page, 'button', 'Withdraw Name', LONG);
    await reachByKeyboard(page, 'button', 'Suspend', LONG);
    await open(`/requests/${requests.suspended}`);
    await reachByKeyboard(page, 'button', 'Resume', LONG);
  });

  it('the organization’s request page: the keep outcome, the side-by-side compare and Correct open are clean; Dismiss is reached', async () => {
    const detail = `/org/${orgId}/requests/${requests.active}`;
    await open(detail);
    await page.getByRole('button', { name: 'Keep Name', exact: true }).click();
    await page.locator('[aria-live]').getByText('Keep Name').waitFor();
    await clean('the keep outcome');

    await d.updateDoc(founder, nameDoc, name('Ann Two'));
    await web.eventually(async () => (await d.proposals(requests.active)).length === 1, 'the proposal of version 2');
    await open(detail);
    await page.getByRole('button', { name: 'Compare version 2 of Name with your copy' }).click();
    await page.getByRole('region', { name: 'Proposed version' }).waitFor();
    await clean('the side-by-side compare');
    await reachByKeyboard(page, 'button', 'Dismiss version 2 of Name', LONG);

    await page.getByRole('button', { name: 'Correct Name' }).click();
    await page.getByLabel('Given name').waitFor();
    await clean('the Correct form');
    await reachByKeyboard(page, 'textbox', 'Given name', LONG);
  });

  it('the organization’s pages: Send invitation, Seal the key, Register app, Add member and Create organization are reached', async () => {
    await open(`/org/${orgId}/requests`);
    await reachByKeyboard(page, 'button', 'Send invitation', LONG);
    await reachByKeyboard(page, 'button', /^Go$/);
    await open(`/org/${orgId}/settings`);
    await reachByKeyboard(page, 'button', 'Seal the key');
    await reachByKeyboard(page, 'button', 'Register app');
    await open(`/org/${orgId}/members`);
    await reachByKeyboard(page, 'button', 'Add member');
    await open('/organizations');
    await reachByKeyboard(page, 'button', 'Create organization');
  });

  it('the development mailbox and a page that is not found are clean', async () => {
    await page.goto(`${web.base}/dev/mailbox`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await clean('/dev/mailbox');
    // The service serves the app only at its pages' paths: the app's own not-found page shows on a link within it.
    await open('/requests');
    await page.evaluate(() => {
      window.history.pushState(null, '', '/requests/a/b');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await clean('the not-found page');
    expect(web.cspErrors).to.deep.equal([]);
  });
});
