import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { Page, Response } from 'playwright-core';
import { MANUAL_NAME_SLOT } from '../api/support/driver.js';
import { mainBackend } from '../support/databases.js';
import type { Browser } from './support/browser.js';
import { listening } from '../support/listening.js';
import { seriousViolations, signInThroughThePages, startWebService, type WebService } from './support/web-service.js';

const JWT = /eyJ[\w-]+\.[\w-]+\.[\w-]+/;
describe(`§11 the pages in a browser (R-WEB-01 to R-WEB-07; ${mainBackend})`, function () {
  this.timeout(60_000);
  let web: WebService;
  let base: string;
  let browser: Browser;
  let page: Page;
  const person = `p${randomBytes(5).toString('hex')}@example.com`;
  let clinicId: string;
  /** The founder's member token in the clinic. */
  let member: string;

  before(async function () {
    web = await startWebService(this);
    ({ base, browser } = web);
    // An organization has asked the person for something before they first sign in.
    const api = web.api;
    const founder = await api.user();
    clinicId = await api.organization(founder.token, 'Acme Clinic');
    member = await api.signIn(founder.token, clinicId);
    const manifest = { name: 'Proof of identity', purpose: 'To check who you are', retention: 'P30D', slots: [MANUAL_NAME_SLOT] };
    const made = await api.post('/org/v1/manifests', member, manifest);
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const manifestId = (made.body.manifest as { manifestId: string }).manifestId;
    const sent = await api.post('/org/v1/requests', member, { manifestId, recipientEmail: person });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    page = await browser.context.newPage();
  });
  after(() => web?.close());

  const sessionCookie = async () => (await browser.context.cookies(base)).find((c) => c.name === 'session');

  it('signs in through the pages with the code from the development mailbox and lists the requests in plain words', async () => {
    await signInThroughThePages(web, page, person);
    const entry = page.getByRole('listitem').filter({ hasText: 'Acme Clinic' });
    await entry.waitFor();
    expect(await entry.innerText()).to.contain('Waiting for your answer');
    expect(web.cspErrors, 'no Content-Security-Policy violation on the way').to.deep.equal([]);
  });

  it('keeps the session in an HttpOnly, SameSite=Strict cookie, not Secure on plain-http localhost', async () => {
    const cookie = await sessionCookie();
    expect(cookie, 'the session cookie').to.not.equal(undefined);
    expect({ httpOnly: cookie!.httpOnly, sameSite: cookie!.sameSite, secure: cookie!.secure }).to.deep.equal({
      httpOnly: true,
      sameSite: 'Strict',
      secure: false,
    });
    expect(await page.evaluate(() => document.cookie)).to.equal('');
  });

  it('leaves no token in localStorage, sessionStorage or the page source', async () => {
    expect((await sessionCookie())?.value, 'the cookie holds the token').to.match(JWT);
    const seen = await page.evaluate(() =>
      JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, html: document.documentElement.outerHTML }),
    );
    expect(seen).to.not.match(JWT);
    expect(await (await fetch(`${base}/requests`)).text()).to.not.match(JWT);
  });

  it('refuses a form posted from another origin with the cookie, and the session lives on', async () => {
    const form = (target: string) =>
      `<!doctype html><form method="post" action="${target}" enctype="text/plain">` +
      `<input name='{"query":"{ user { me { email } } }","x":"' value='"}'></form>` +
      '<script>document.forms[0].submit()</script>';
    const attacker = createServer((req, res) => {
      const target = req.url === '/graphql' ? `${base}/graphql` : `${base}/auth/sign-out`;
      res.writeHead(200, { 'content-type': 'text/html' }).end(form(target));
    });
    const port = await listening(attacker);
    try {
      // Same site (127.0.0.1), another origin: SameSite lets the cookie go, the CSRF defence refuses it.
      for (const path of ['/sign-out', '/graphql']) {
        const refused = page.waitForResponse((r) => r.url().startsWith(base) && r.request().method() === 'POST');
        await page.goto(`http://127.0.0.1:${port}${path}`);
        const response = await refused;
        expect((await response.request().allHeaders()).cookie, `${path}: the cookie went along`).to.match(/^session=/);
        expect(response.status(), path).to.equal(403);
      }
      // Another site (localhost): SameSite=Strict keeps the cookie home, so the call is anonymous and refused.
      const refused = page.waitForResponse((r) => r.url().startsWith(base) && r.request().method() === 'POST');
      await page.goto(`http://localhost:${port}/sign-out`);
      const response = await refused;
      expect((await response.request().allHeaders()).cookie).to.equal(undefined);
      expect(response.status()).to.be.within(400, 499);
    } finally {
      attacker.closeAllConnections();
      await new Promise((resolve) => attacker.close(resolve));
    }
    await page.goto(`${base}/requests`);
    await page.getByRole('listitem').filter({ hasText: 'Acme Clinic' }).waitFor();
  });

  it('an organization’s page keeps the member token in an HttpOnly, SameSite=Strict cookie, out of scripts, storage and the page', async () => {
    const added = await web.api.put(`/org/v1/members/${encodeURIComponent(person)}`, member, { permissions: ['request_read'] });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    await page.goto(`${base}/org/${clinicId}/requests`);
    await page.getByRole('link', { name: person }).waitFor();
    const cookie = (await browser.context.cookies(base)).find((c) => c.name === `member-${clinicId}`);
    expect(cookie?.value, 'the member cookie holds the token').to.match(JWT);
    expect({ httpOnly: cookie!.httpOnly, sameSite: cookie!.sameSite }).to.deep.equal({ httpOnly: true, sameSite: 'Strict' });
    expect(await page.evaluate(() => document.cookie)).to.equal('');
    const seen = await page.evaluate(() =>
      JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, html: document.documentElement.outerHTML }),
    );
    expect(seen).to.not.match(JWT);
    expect(await (await fetch(`${base}/org/${clinicId}/requests`)).text()).to.not.match(JWT);
  });

  it('serves every page and asset with a Content-Security-Policy without unsafe-inline', async () => {
    const served: Array<{ url: string; csp: string | undefined }> = [];
    const record = (r: Response) => {
      if (r.url().startsWith(base) && ['document', 'script', 'stylesheet'].includes(r.request().resourceType()))
        served.push({ url: r.url(), csp: r.headers()['content-security-policy'] });
    };
    page.on('response', record);
    for (const path of ['/', '/sign-in', '/requests', '/vault', '/account', '/dev/mailbox']) await page.goto(`${base}${path}`);
    page.off('response', record);
    expect(served.filter((s) => s.url.includes('/assets/')).length, 'assets loaded').to.be.greaterThan(0);
    for (const { url, csp } of served) {
      expect(csp, url).to.contain("script-src 'self'");
      expect(csp, url).to.not.contain('unsafe-inline');
    }
    expect(web.cspErrors).to.deep.equal([]);
  });

  it('axe-core finds no serious or critical violation on /sign-in and /requests', async () => {
    for (const path of ['/sign-in', '/requests']) {
      await page.goto(`${base}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      if (path === '/requests') await page.getByRole('listitem').first().waitFor();
      expect(await seriousViolations(page), path).to.deep.equal([]);
    }
  });

  it('works at 375 px wide without horizontal scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const path of ['/sign-in', '/requests']) {
      await page.goto(`${base}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      const { scroll, client } = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(scroll, path).to.be.at.most(client);
    }
  });

  it('a sign-out the service fails says so and stays on the page, still signed in', async () => {
    await page.goto(`${base}/requests`);
    const problem = { code: 'unavailable', detail: 'the service is busy' };
    await page.route('**/auth/sign-out', (route) =>
      route.fulfill({ status: 503, contentType: 'application/problem+json', body: JSON.stringify(problem) }),
    );
    try {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('alert').filter({ hasText: 'Signing out failed: the service is busy' }).waitFor();
      expect(page.url()).to.equal(`${base}/requests`);
      expect(await sessionCookie()).to.not.equal(undefined);
    } finally {
      await page.unroute('**/auth/sign-out');
    }
  });

  it('Sign out ends the session, drops the cookie and returns to /sign-in', async () => {
    await page.goto(`${base}/requests`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/sign-in`);
    expect(await sessionCookie()).to.equal(undefined);
    await page.goto(`${base}/requests`);
    await page.waitForURL(`${base}/sign-in?next=%2Frequests`);
  });
});
