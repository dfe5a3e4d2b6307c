import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { mainBackend } from '../support/databases.js';
import { startWebService, type WebService } from './support/web-service.js';

describe(`GET /docs renders the OpenAPI document in a browser, served by the service (R-DOCS-07, C§12; ${mainBackend})`, function () {
  let web: WebService;
  let page: Page;
  /** Every URL the page loaded, to show nothing came from elsewhere. */
  const loaded: string[] = [];

  before(async function () {
    web = await startWebService(this);
    page = await web.browser.context.newPage();
    page.on('request', (r) => loaded.push(r.url()));
  });
  after(() => web?.close());

  it('shows the operations, one opened with its answers and problem codes, with no Content-Security-Policy violation', async () => {
    await page.goto(`${web.base}/docs`);
    const signIn = page.getByText('Sign in to an organization as a member', { exact: true });
    await signIn.waitFor();
    await page.getByText('Keep a copy of what a participant shared in a slot', { exact: true }).click();
    await page
      .getByText(/participant_ineligible/)
      .first()
      .waitFor();
    expect(await page.getByText('Operations and discovery').count()).to.be.greaterThan(0);
    expect(web.cspErrors).to.deep.equal([]);
  });

  it('loads everything from the service itself, under a policy that allows no inline or evaluated script or style', async () => {
    expect(loaded.filter((url) => !url.startsWith(`${web.base}/`) && !url.startsWith('data:'))).to.deep.equal([]);
    expect(loaded).to.include.members([`${web.base}/docs/swagger-ui-bundle.js`, `${web.base}/openapi.json`]);
    const res = await fetch(`${web.base}/docs`);
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).to.contain("script-src 'self';").and.contain("style-src 'self';").and.contain("img-src 'self' data:;");
    expect(policy).to.not.match(/unsafe-(inline|eval)/);
    expect(await res.text()).to.not.match(/<script>|<style|style=/);
  });
});
