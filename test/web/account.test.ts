import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Download, Page } from 'playwright-core';
import { mainBackend } from '../support/databases.js';
import { fileClient } from '../api/files/file-client.js';
import {
  overflowsSideways,
  reachByKeyboard,
  seriousViolations,
  signInThroughThePages,
  startWebService,
  type WebService,
} from './support/web-service.js';

const ME = '{ user { me { email } } }';

describe(`§11 the account page in a browser (R-WEB-26 to R-WEB-29; ${mainBackend})`, function () {
  this.timeout(120_000);
  let web: WebService;
  let page: Page;
  /** A second session of the person's, signed in elsewhere (through the API). */
  let elsewhere: string;
  const person = `a${randomBytes(5).toString('hex')}@example.com`;
  const scan = randomBytes(300 * 1024);

  before(async function () {
    web = await startWebService(this);
    ({ token: elsewhere } = await web.api.user({ email: person }));
    const builtIns = (await web.api.get('/schemas/core')).body.schemas as { name: string; id: string }[];
    const schemaRef = builtIns.find((b) => b.name === 'PersonFullName')!.id;
    const made = await web.api.post('/graphql', elsewhere, {
      query: 'mutation($input: DocumentInput!) { user { document { create(input: $input) { id } } } }',
      variables: { input: { name: 'Travel name', schemaRef, data: { givenName: 'Ann', familyName: 'Archive' } } },
    });
    expect(made.body.errors, JSON.stringify(made.body.errors)).to.equal(undefined);
    expect((await fileClient(web.base).upload(elsewhere, { fileName: 'scan.bin' }, scan)).status).to.equal(201);
    page = await web.browser.context.newPage();
    await signInThroughThePages(web, page, person, '/account');
  });
  after(() => web?.close());

  const gqlStatus = async (token: string) => (await web.api.post('/graphql', token, { query: ME })).status;

  it('lists the sessions with this one marked "This session", and Revoke ends another one: its token gets 401', async () => {
    const sessions = page.getByRole('list').filter({ has: page.getByRole('button', { name: /^Revoke/ }) });
    await sessions.getByRole('listitem').nth(1).waitFor();
    expect(await sessions.getByRole('listitem').count()).to.equal(2);
    expect(await sessions.getByText('This session', { exact: true }).count()).to.equal(1);
    expect(await sessions.getByRole('listitem').first().innerText()).to.contain('This session');

    expect(await gqlStatus(elsewhere)).to.equal(200);
    await page.getByRole('button', { name: /^Revoke the session signed in/ }).click();
    await page.getByRole('status').filter({ hasText: 'has ended' }).waitFor();
    await sessions.getByRole('listitem').nth(1).waitFor({ state: 'detached' });
    expect(await gqlStatus(elsewhere)).to.equal(401);
    expect(await sessions.getByRole('listitem').innerText()).to.contain('This session');
  });

  it('Export downloads the archive with its bytes counted as they arrive; it holds the person’s document and file', async () => {
    // Slowed, the download takes long enough for the count to be seen.
    const cdp = await web.browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: 128 * 1024,
      uploadThroughput: -1,
    });
    let saved: Download | undefined;
    try {
      [saved] = await Promise.all([
        page.waitForEvent('download'),
        (async () => {
          await page.getByRole('button', { name: 'Export', exact: true }).click();
          await page.getByText(/\d+(\.\d)? KB received/).waitFor();
          expect(await page.getByRole('progressbar', { name: 'Export received so far' }).isVisible()).to.equal(true);
        })(),
      ]);
    } finally {
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    }
    if (!saved) return expect.fail('no download');
    expect(saved.suggestedFilename()).to.match(/^export-\d{4}-\d{2}-\d{2}\.jsonl$/);
    const text = await readFile(await saved.path(), 'utf8');
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const all = JSON.stringify(lines);
    expect(all).to.contain('Travel name').and.to.contain('Archive');
    expect(all, 'the file’s bytes, base64').to.contain(scan.subarray(0, 3 * 1024).toString('base64'));
    await page
      .getByRole('status')
      .filter({ hasText: `Saved ${saved.suggestedFilename()}` })
      .waitFor();
  });

  it('axe-core finds no serious or critical violation on /account, works at 375 px, and its actions are reached by keyboard', async () => {
    await page.goto(`${web.base}/account`);
    await page.getByText('This session', { exact: true }).waitFor();
    expect(await seriousViolations(page)).to.deep.equal([]);
    for (const name of [/^Revoke/, 'Export', 'Send a code to confirm erasure']) await reachByKeyboard(page, 'button', name);
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      expect(await overflowsSideways(page)).to.equal(false);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('erases the account only with the mailed code, then shows /sign-in; the account is gone', async () => {
    await page.goto(`${web.base}/account`);
    await page.getByText('This session', { exact: true }).waitFor();
    const sessionToken = (await web.browser.context.cookies(web.base)).find((c) => c.name === 'session')!.value;
    await page.getByRole('button', { name: 'Send a code to confirm erasure' }).click();
    const code = page.getByLabel('Code from the mail');
    await code.waitFor();
    expect(await seriousViolations(page), 'with the confirmation form shown').to.deep.equal([]);
    await reachByKeyboard(page, 'button', 'Erase account');

    await code.fill(web.mailer.lastCodeFor(person) === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Erase account' }).click();
    await page.getByRole('alert').filter({ hasText: 'the code is invalid' }).waitFor();
    expect(page.url(), 'a wrong code erases nothing').to.equal(`${web.base}/account`);
    expect(await gqlStatus(sessionToken)).to.equal(200);

    await code.fill(web.mailer.lastCodeFor(person));
    await page.getByRole('button', { name: 'Erase account' }).click();
    await page.waitForURL(/\/sign-in/);
    expect(await gqlStatus(sessionToken)).to.equal(401);
    expect(web.cspErrors).to.deep.equal([]);
  });
});
