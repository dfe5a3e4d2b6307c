import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page, Response } from 'playwright-core';
import { createLogger } from '../../src/logger.js';
import { outboxMailer, type MailMessage } from '../../src/mail/index.js';
import { MANUAL_NAME_SLOT } from '../api/support/driver.js';
import { startTestService, type TestService } from '../api/support/service.js';
import { orgClient } from '../api/org/org-client.js';
import { mainBackend } from '../support/databases.js';
import { RecordingMailer } from '../support/recording-mailer.js';
import { builtPages } from './support/built-pages.js';
import { CHROMIUM, hasChromium, openBrowser, type Browser } from './support/browser.js';

const JWT = /eyJ[\w-]+\.[\w-]+\.[\w-]+/;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Records every mail for the organization's side, and writes it to the outbox the development mailbox shows. */
class OutboxAndRecord extends RecordingMailer {
  constructor(private readonly outbox: ReturnType<typeof outboxMailer>) {
    super();
  }
  override async send(message: MailMessage): Promise<void> {
    await super.send(message);
    await this.outbox.send(message);
  }
}

async function listening(server: Server, host?: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listening(server, '127.0.0.1');
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe(`§11 the pages in a browser (R-WEB-01 to R-WEB-07; ${mainBackend})`, function () {
  this.timeout(60_000);
  let service: TestService;
  let base: string;
  let dataDir: string;
  let browser: Browser;
  let page: Page;
  const person = `p${randomBytes(5).toString('hex')}@example.com`;
  const cspErrors: string[] = [];

  before(async function () {
    if (!hasChromium()) {
      console.log(`    skipped: ${CHROMIUM} is missing (apt-get install chromium); the browser suites need it`);
      this.skip();
    }
    this.timeout(240_000);
    builtPages();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    dataDir = await mkdtemp(join(tmpdir(), 'dss-web-'));
    const mailer = new OutboxAndRecord(outboxMailer({ dataDir, logger: createLogger('silent') }));
    service = await startTestService({ port, domain: { mailer, env: { BASE_URL: base, DATA_DIR: dataDir } } });
    // An organization has asked the person for something before they first sign in.
    const api = orgClient(service.url, mailer);
    const founder = await api.user();
    const member = await api.signIn(founder.token, await api.organization(founder.token, 'Acme Clinic'));
    const manifest = { name: 'Proof of identity', purpose: 'To check who you are', retention: 'P30D', slots: [MANUAL_NAME_SLOT] };
    const made = await api.post('/org/v1/manifests', member, manifest);
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const manifestId = (made.body.manifest as { manifestId: string }).manifestId;
    const sent = await api.post('/org/v1/requests', member, { manifestId, recipientEmail: person });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);

    browser = await openBrowser();
    page = await browser.context.newPage();
    browser.context.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function signInThroughThePages(email: string) {
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code from the mail').waitFor();
    const mailbox = await browser.context.newPage();
    await mailbox.goto(`${base}/dev/mailbox`);
    const mail = await mailbox
      .locator('article', { hasText: `To ${email}` })
      .first()
      .innerText();
    await mailbox.close();
    const code = /\b\d{6}\b/.exec(mail)?.[0];
    expect(code, mail).to.be.a('string');
    await page.getByLabel('Code from the mail').fill(code!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/requests`);
    await page.getByRole('heading', { name: 'Your requests' }).waitFor();
  }

  const sessionCookie = async () => (await browser.context.cookies(base)).find((c) => c.name === 'session');

  it('signs in through the pages with the code from the development mailbox and lists the requests in plain words', async () => {
    await signInThroughThePages(person);
    const entry = page.getByRole('listitem').filter({ hasText: 'Acme Clinic' });
    await entry.waitFor();
    expect(await entry.innerText()).to.contain('Waiting for your answer');
    expect(cspErrors, 'no Content-Security-Policy violation on the way').to.deep.equal([]);
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
    expect(cspErrors).to.deep.equal([]);
  });

  it('axe-core finds no serious or critical violation on /sign-in and /requests', async () => {
    for (const path of ['/sign-in', '/requests']) {
      await page.goto(`${base}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      if (path === '/requests') await page.getByRole('listitem').first().waitFor();
      await page.evaluate(AXE);
      const violations = await page.evaluate(async () => {
        const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
        return (result.violations as Array<{ id: string; impact: string; help: string }>).map(({ id, impact, help }) => ({
          id,
          impact,
          help,
        }));
      });
      expect(
        violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'),
        path,
      ).to.deep.equal([]);
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

  it('Sign out ends the session, drops the cookie and returns to /sign-in', async () => {
    await page.goto(`${base}/requests`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/sign-in`);
    expect(await sessionCookie()).to.equal(undefined);
    await page.goto(`${base}/requests`);
    await page.waitForURL(`${base}/sign-in`);
  });
});
