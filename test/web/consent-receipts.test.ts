import { verifyReceipts, type ReceiptKeys } from '@dss/sdk';
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { driver, MANUAL_NAME_SLOT, type User } from '../api/support/driver.js';
import { mainBackend } from '../support/databases.js';
import { openBrowser, type Browser } from './support/browser.js';
import { reachByKeyboard, seriousViolations, signInThroughThePages, startWebService, type WebService } from './support/web-service.js';

/** A downloaded receipts file: what GET /org/v1/requests/{requestId}/receipts answers (docs/receipts.md). */
type ReceiptsFile = {
  issuer: string;
  requestId: string;
  receipts: Array<{ seq: number; receiptId: string; issuedAt: string; event: string; status: string; jws: string }>;
};

const LINE = (seq: number, words: string, status: string) => new RegExp(`^${seq} · .+ · ${words} · ${status}$`);

/**
 * Contract §14 on the pages: a request's signed consent receipts on the person's and the
 * organization's request page, one line each, and the file both download, which verifies offline.
 */
describe(`§14 consent receipts on the request pages in a browser (${mainBackend})`, function () {
  this.timeout(120_000);
  let web: WebService;
  let orgBrowser: Browser;
  /** Content-Security-Policy errors of the organization's browser (the person's are web.cspErrors). */
  const orgCspErrors: string[] = [];
  let person: Page;
  let org: Page;
  let founder: User;
  let organizationId: string;
  let member: string;
  let ann: User;
  let requestId: string;
  /** The file the person downloaded. */
  let personFile: string;
  const d = driver({ api: () => web.api, member: () => member });

  before(async function () {
    web = await startWebService(this);
    founder = await web.api.user();
    organizationId = await web.api.organization(founder.token, 'Acme Bank');
    member = await web.api.signIn(founder.token, organizationId);
    const manifest = await d.manifest([MANUAL_NAME_SLOT], 'P90D', { name: 'Open an account' });
    ann = await web.api.user();
    await d.createDoc(ann, {
      name: 'My passport name',
      schemaRef: `${web.base}/schemas/core/PersonFullName.json`,
      data: { givenName: 'Ann', familyName: 'Lee' },
    });
    requestId = await d.send(manifest.manifestId, ann.email);
    person = await web.browser.context.newPage();
    // The organization's member in a browser of their own: one session cookie per browser.
    orgBrowser = await openBrowser();
    orgBrowser.context.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) orgCspErrors.push(m.text());
    });
    org = await orgBrowser.context.newPage();
  });
  after(async () => {
    await orgBrowser?.close();
    await web?.close();
  });

  const receiptsOn = (page: Page) => page.getByRole('list', { name: 'Consent receipts' }).getByRole('listitem');
  const section = (page: Page) => page.getByRole('region', { name: 'Consent receipts' });
  /** The number of receipts the service holds for the request, as the organization reads them. */
  const issued = async () => ((await web.api.get(`/org/v1/requests/${requestId}/receipts`, member)).body as ReceiptsFile).receipts.length;
  const jwks = async () => (await (await fetch(`${web.base}/.well-known/jwks.json`)).json()) as ReceiptKeys;

  /** Presses Download receipts by keyboard and reads the file saved. */
  async function downloadByKeyboard(page: Page): Promise<{ name: string; text: string }> {
    await reachByKeyboard(page, 'button', 'Download receipts');
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    return { name: download.suggestedFilename(), text: await readFile(await download.path(), 'utf8') };
  }

  it('before any consent change the person’s page says there is no receipt yet', async () => {
    await signInThroughThePages(web, person, ann.email, `/requests/${requestId}`);
    await section(person).getByText('No receipts yet: one is issued with each consent change.').waitFor();
    expect(await section(person).getByRole('button', { name: 'Download receipts' }).count()).to.equal(0);
    expect(await seriousViolations(person)).to.deep.equal([]);
  });

  it('once the person accepts, the page lists the receipts oldest first in plain words: accepted, then the slot shared', async () => {
    await person.getByLabel('My passport name').check();
    await person.getByRole('button', { name: 'Accept' }).click();
    await person.getByRole('status').filter({ hasText: 'You accepted' }).waitFor();
    // The reactor issues them a moment later; the section reads them again until they are there.
    await receiptsOn(person).nth(1).waitFor();
    const lines = await receiptsOn(person).allInnerTexts();
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(LINE(1, 'You accepted', 'consent given'));
    expect(lines[1]).to.match(LINE(2, 'You shared an answer', 'consent given'));
    expect(await section(person).innerText()).to.contain('dss receipts verify');
  });

  it('the person suspends: a third receipt appears without reloading the page', async () => {
    await person.getByRole('button', { name: 'Suspend' }).click();
    await person.getByText('Paused by you').first().waitFor();
    await receiptsOn(person).nth(2).waitFor();
    expect(await receiptsOn(person).nth(2).innerText()).to.match(LINE(3, 'You paused the connection', 'consent paused'));
    expect(await issued()).to.equal(3);
  });

  it('Download receipts, by keyboard, saves the receipts file, whose receipts verify against /.well-known/jwks.json', async () => {
    const { name, text } = await downloadByKeyboard(person);
    expect(name).to.equal(`consent-receipts-${requestId}.json`);
    const file = JSON.parse(text) as ReceiptsFile;
    expect(Object.keys(file)).to.deep.equal(['issuer', 'requestId', 'receipts']);
    expect(file).to.include({ issuer: web.base, requestId });
    expect(file.receipts.map((r) => [r.seq, r.event, r.status])).to.deep.equal([
      [1, 'RequestAccepted', 'dpv:ConsentGiven'],
      [2, 'SlotGranted', 'dpv:ConsentGiven'],
      [3, 'RequestSuspended', 'dss:ConsentSuspended'],
    ]);
    const verdict = await verifyReceipts(
      file.receipts.map((r) => r.jws),
      await jwks(),
      { issuer: web.base, request: requestId },
    );
    expect(verdict, JSON.stringify(verdict)).to.include({ ok: true, count: 3 });
    personFile = text;
    expect(await seriousViolations(person)).to.deep.equal([]);
    expect(web.cspErrors).to.deep.equal([]);
  });

  it('the organization’s page, its member signed in through the pages, shows the same receipts and downloads the same file', async () => {
    await signInThroughThePages(web, org, founder.email, `/org/${organizationId}/requests/${requestId}`);
    await receiptsOn(org).nth(2).waitFor();
    const lines = await receiptsOn(org).allInnerTexts();
    expect(lines).to.have.length(3);
    expect(lines[0]).to.match(LINE(1, 'The person accepted', 'consent given'));
    expect(lines[1]).to.match(LINE(2, 'The person shared an answer', 'consent given'));
    expect(lines[2]).to.match(LINE(3, 'The person paused the connection', 'consent paused'));

    const { name, text } = await downloadByKeyboard(org);
    expect(name).to.equal(`consent-receipts-${requestId}.json`);
    const jwsOf = (t: string) => (JSON.parse(t) as ReceiptsFile).receipts.map((r) => r.jws);
    expect(jwsOf(text)).to.deep.equal(jwsOf(personFile));
    expect(text, 'byte for byte the person’s file').to.equal(personFile);
    expect(await seriousViolations(org)).to.deep.equal([]);
    expect(orgCspErrors).to.deep.equal([]);
  });
});
