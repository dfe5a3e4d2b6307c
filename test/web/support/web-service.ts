import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createLogger } from '../../../src/logger.js';
import { outboxMailer, type MailMessage } from '../../../src/mail/index.js';
import { startConsentReceiptWorkers } from '../../../src/workers/consent-receipt-workers.js';
import { startTestService, type TestService } from '../../api/support/service.js';
import { orgClient, type OrgClient } from '../../api/org/org-client.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { openWorkerQueue, startWorkers } from '../../support/copy-workers.js';
import { startDeliveries } from '../../api/webhooks/webhook-support.js';
import { listening } from '../../support/listening.js';
import { builtPages } from './built-pages.js';
import { CHROMIUM, hasChromium, openBrowser, type Browser } from './browser.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Records every mail for the API side of a test, and writes it to the outbox the development mailbox shows. */
export class OutboxAndRecord extends RecordingMailer {
  constructor(private readonly outbox: ReturnType<typeof outboxMailer>) {
    super();
  }
  override async send(message: MailMessage): Promise<void> {
    await super.send(message);
    await this.outbox.send(message);
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listening(server, '127.0.0.1');
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A real service on the embedded outbox, serving the built pages, and a Chromium to drive them. */
export type WebService = {
  readonly service: TestService;
  readonly base: string;
  readonly mailer: OutboxAndRecord;
  readonly api: OrgClient;
  readonly browser: Browser;
  /** Content-Security-Policy errors the browser reported so far. */
  readonly cspErrors: string[];
  /** Asks until `probe` answers something truthy (workers act in the background), or fails naming `what`. */
  eventually(probe: () => Promise<unknown>, what: string): Promise<void>;
  close(): Promise<void>;
};

/**
 * Starts the service (with the copy workers when asked) and the browser for a browser suite: call it
 * from `before` with the suite's `this`; where Chromium is missing the suite is skipped and says so.
 */
export async function startWebService(
  suite: Mocha.Context,
  options: { readonly workers?: boolean; readonly webhooks?: boolean; readonly env?: Readonly<Record<string, string>> } = {},
): Promise<WebService> {
  if (!hasChromium()) {
    console.log(`    skipped: ${CHROMIUM} is missing (apt-get install chromium); the browser suites need it`);
    suite.skip();
  }
  suite.timeout(240_000);
  builtPages();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = await mkdtemp(join(tmpdir(), 'dss-web-'));
  const mailer = new OutboxAndRecord(outboxMailer({ dataDir, logger: createLogger('silent') }));
  const service = await startTestService({ port, domain: { mailer, env: { ...options.env, BASE_URL: base, DATA_DIR: dataDir } } });
  // The copy workers keep automatic slots and open proposals, as `npm start` runs them.
  const queue = options.workers ? await openWorkerQueue(service) : null;
  const workers = queue ? await startWorkers(service, queue) : null;
  // The webhook workers deliver the organization's events (contract §12), their retries in milliseconds.
  const webhooks = options.webhooks ? await startDeliveries(service) : null;
  // Contract §14: the reactor that issues the consent receipts, as `npm start` runs it.
  const receipts = await startConsentReceiptWorkers({
    db: service.db,
    store: service.store,
    receipts: service.domain!.consentReceipts,
    logger: createLogger('silent'),
    reactorPollMs: 50,
  });
  const browser = await openBrowser();
  const cspErrors: string[] = [];
  browser.context.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
  });
  return {
    service,
    base,
    mailer,
    api: orgClient(service.url, mailer),
    browser,
    cspErrors,
    eventually: async (probe, what) => {
      for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
        if (await probe()) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect.fail(`${what} did not happen`);
    },
    close: async () => {
      await receipts.stop();
      await workers?.stop();
      await queue?.close();
      await webhooks?.workers.stop();
      await webhooks?.queue.close();
      await browser.close();
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The newest 6-digit code mailed to `email`, read from the development mailbox page as a newcomer would. */
export async function codeFromMailbox(web: WebService, email: string): Promise<string> {
  const mailbox = await web.browser.context.newPage();
  try {
    await mailbox.goto(`${web.base}/dev/mailbox`);
    const mail = await mailbox
      .locator('article', { hasText: `To ${email}` })
      .first()
      .innerText();
    const code = /\b\d{6}\b/.exec(mail)?.[0];
    expect(code, mail).to.be.a('string');
    return code!;
  } finally {
    await mailbox.close();
  }
}

/**
 * Signs `email` in through /sign-in with the code from the development mailbox; `from` is a page
 * that sends the person to sign in (then they land back on it), else /requests.
 */
export async function signInThroughThePages(web: WebService, page: Page, email: string, from?: string): Promise<void> {
  await page.goto(`${web.base}${from ?? '/sign-in'}`);
  await page.waitForURL(/\/sign-in/);
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code from the mail').waitFor();
  await page.getByLabel('Code from the mail').fill(await codeFromMailbox(web, email));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${web.base}${from ?? '/requests'}`);
}

/** axe-core's serious and critical violations on the page as it stands. */
export async function seriousViolations(page: Page): Promise<Array<{ id: string; impact: string; help: string; targets: string[] }>> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(d: Document, o: object): Promise<{ violations: Array<Record<string, unknown>> }> } })
      .axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: String(v.id),
      impact: String(v.impact),
      help: String(v.help),
      targets: (v.nodes as Array<{ target: string[] }>).map((n) => n.target.join(' ')),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Whether the page scrolls sideways at its current width (it must not at 375 px). */
export async function overflowsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
}

/**
 * Tabs through the page until the element named `name` (role `role`) has focus, and checks the
 * focus is visible (an outline or box shadow); fails after `limit` presses of Tab.
 */
export async function reachByKeyboard(
  page: Page,
  role: 'button' | 'link' | 'textbox' | 'checkbox' | 'combobox' | 'radio',
  name: string | RegExp,
  limit = 80,
): Promise<void> {
  const target = page.getByRole(role, { name }).first();
  await target.waitFor();
  const handle = await target.elementHandle();
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.locator('body').focus();
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((el) => el === document.activeElement, handle)) {
      const visible = await page.evaluate((el) => {
        const style = getComputedStyle(el as Element);
        return (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
      }, handle);
      expect(visible, `focus on ${String(name)} is visible`).to.equal(true);
      return;
    }
  }
  expect.fail(`${role} "${String(name)}" was not reached by ${limit} presses of Tab`);
}
