import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { fileClient } from '../api/files/file-client.js';
import { driver, MANUAL_NAME_SLOT, PASSPORT_SLOT, type Manifest, type User } from '../api/support/driver.js';
import { mainBackend } from '../support/databases.js';
import {
  overflowsSideways,
  reachByKeyboard,
  seriousViolations,
  signInThroughThePages,
  startWebService,
  type WebService,
} from './support/web-service.js';

const name = (givenName: string) => ({ givenName, familyName: 'Example' });
const COMPANY_SLOT = {
  label: 'Companies',
  group: 'KYC',
  multiple: true,
  subject: 'company',
  kind: 'schema',
  target: 'LegalEntityRegistration',
  verbs: ['keep'],
  adoption: 'manual',
};
/** More requests than a page of the list holds (20), sent before the one the detail tests use. */
const BULK = 20;

describe(`§11 the organization's request pages in a browser (R-WEB-50 to R-WEB-56; ${mainBackend})`, function () {
  this.timeout(90_000);
  let web: WebService;
  let page: Page;
  let founder: User;
  let token: string;
  let orgA: string;
  let reader: User;
  let ann: User;
  let manifest: Manifest;
  let requestId: string;
  let foreignRequest: string;
  let nameDoc: string;
  let alphaReg: string;
  const invitee = `i${randomBytes(5).toString('hex')}@example.com`;

  const d = driver({ api: () => web.api, member: () => token });
  const slotId = (i: number) => manifest.slots[i]!.slotId;
  const [NAME, COMPANIES] = [0, 1];
  const base = () => web.base;
  /** A built-in schema's id under this service's BASE_URL. */
  const builtIn = (schema: string) => `${web.base}/schemas/core/${schema}.json`;
  const listPath = () => `/org/${orgA}/requests`;
  const detailPath = () => `/org/${orgA}/requests/${requestId}`;
  const section = (heading: string) => page.locator('section', { has: page.getByRole('heading', { level: 2, name: heading }) });
  const nameCopy = () => page.getByRole('article', { name: /^Name: Name/ });
  const nameCopyNow = async () => (await d.copies(requestId)).filter((c) => c.adoption.slotId === slotId(NAME)).at(-1)!;
  /** Waits for the reactor's open proposal on the slot, then opens the detail page afresh to show it. */
  async function proposalOpens(slot: string, newVersion: number): Promise<void> {
    await web.eventually(
      async () => (await d.proposals(requestId)).some((p) => p.slotId === slot && p.newVersion === newVersion),
      `the proposal of version ${newVersion}`,
    );
    await page.goto(`${base()}${detailPath()}`);
    await page.getByRole('heading', { level: 3, name: new RegExp(`the person published version ${newVersion}$`) }).waitFor();
  }
  const textsOf = async (list: Locator) => list.locator('li').allInnerTexts();

  before(async function () {
    web = await startWebService(this, { workers: true });
    const api = web.api;
    founder = await api.user();
    orgA = await api.organization(founder.token, 'Acme Bank');
    token = await api.signIn(founder.token, orgA);
    manifest = await d.manifest([MANUAL_NAME_SLOT, COMPANY_SLOT, PASSPORT_SLOT], 'P30D', { name: 'Account opening' });
    await d.manifest([MANUAL_NAME_SLOT], 'P30D', { name: 'Proof of name' });
    reader = await api.user();
    const added = await api.put(`/org/v1/members/${encodeURIComponent(reader.email)}`, token, { permissions: ['request_read'] });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);

    for (let i = 0; i < BULK; i++) await d.send(manifest.manifestId, `bulk${i}-${randomBytes(3).toString('hex')}@example.com`);
    // Ann shares her name, two companies (she no longer answers for Beta) and a passport scan.
    ann = await api.user();
    nameDoc = await d.createDoc(ann, { name: 'Name', schemaRef: builtIn('PersonFullName'), data: name('Ann') });
    const [alpha, beta] = [await d.entity(ann, 'Alpha'), await d.entity(ann, 'Beta')];
    const registration = (owner: string, n: string) =>
      d.createDoc(ann, { name: n, owner, schemaRef: builtIn('LegalEntityRegistration'), data: { registrationNumber: n, country: 'DE' } });
    alphaReg = await registration(alpha, 'HRB A');
    const betaReg = await registration(beta, 'HRB B');
    const scan = await fileClient(web.base).upload(ann.token, { fileName: 'id.png' }, Buffer.from('passport bytes'));
    expect(scan.status, JSON.stringify(scan.json)).to.equal(201);
    requestId = await d.connected(manifest.manifestId, ann, {
      [slotId(NAME)]: [nameDoc],
      [slotId(COMPANIES)]: [alphaReg, betaReg],
      [manifest.slots[2]!.slotId]: [scan.json.fileId as string],
    });
    const partner = await api.user();
    d.ok(
      await d.gql(
        ann,
        `mutation { user { entity { setMember(entityId: "${beta}", email: "${partner.email}", role: MANAGER) { entityId } } } }`,
      ),
    );
    d.ok(await d.gql(partner, `mutation { user { entity { removeMember(entityId: "${beta}", email: "${ann.email}") { entityId } } } }`));

    const other = await api.user();
    const otherToken = await api.signIn(other.token, await api.organization(other.token, 'Other Bank'));
    const theirs = await d.manifest([MANUAL_NAME_SLOT], 'P30D', { as: otherToken });
    foreignRequest = await d.send(theirs.manifestId, ann.email, { as: otherToken });

    page = await web.browser.context.newPage();
    await signInThroughThePages(web, page, founder.email, listPath());
  });
  after(() => web?.close());

  it('Send invitation through the page: the request is listed, waiting for the person', async () => {
    const send = section('Send an invitation');
    await send.getByLabel('Manifest').selectOption({ label: 'Proof of name (version 1)' });
    await send.getByLabel('Recipient’s email').fill(invitee);
    await send.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation sent to ${invitee}.`).waitFor();
    const entry = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: invitee }) });
    await entry.waitFor();
    expect(await entry.innerText())
      .to.contain('Proof of name')
      .and.contain('Waiting for the person');
    const listed = (await web.api.get(`/org/v1/requests?email=${encodeURIComponent(invitee)}`, token)).body.requests as unknown[];
    expect(listed).to.have.length(1);
  });

  it('filters the list by state and by email, and pages on with Show more requests', async () => {
    await page.goto(`${base()}${listPath()}`);
    const entries = page.locator('ul.requests > li');
    await page.getByRole('button', { name: 'Show more requests' }).waitFor();
    expect(await entries.count(), 'a page of the list').to.equal(20);
    await page.getByRole('button', { name: 'Show more requests' }).click();
    await page.waitForFunction((n) => document.querySelectorAll('ul.requests > li').length === n, BULK + 2);
    expect(await page.getByRole('button', { name: 'Show more requests' }).count(), 'the last page').to.equal(0);

    // The route filters: the pending requests fill a page of their own, and Show more keeps the filter.
    const filters = page.getByRole('form', { name: 'Filter the requests' });
    await filters.getByLabel('State').selectOption({ label: 'Waiting for the person' });
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('20 requests so far in the state “Waiting for the person”.', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Show more requests' }).click();
    await page.getByText(`${BULK + 1} requests in the state “Waiting for the person”.`, { exact: true }).waitFor();
    const pending = await textsOf(page.locator('ul.requests'));
    expect(pending, 'every pending request, and only those').to.have.length(BULK + 1);
    expect(pending.every((text) => text.includes('State: Waiting for the person'))).to.equal(true);
    expect(pending.some((text) => text.includes(invitee))).to.equal(true);

    await filters.getByLabel('State').selectOption({ label: 'Active' });
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('1 requests in the state “Active”.', { exact: true }).waitFor();
    expect(await entries.first().innerText())
      .to.contain(ann.email)
      .and.contain('Active');

    await filters.getByLabel('State').selectOption({ label: 'Any state' });
    await filters.getByLabel('Recipient’s email').fill(invitee);
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('1 requests.', { exact: true }).waitFor();
    expect(await entries.first().innerText()).to.contain(invitee);
  });

  it('shows the detail: items, records available or not and why; Keep shows what was kept and what was skipped, and why', async () => {
    await page.goto(`${base()}/org/${orgA}/requests`);
    await page.getByRole('link', { name: ann.email }).click();
    await page.waitForURL(`${base()}${detailPath()}`);
    const companies = page.getByRole('article', { name: /^Companies/ });
    expect(await companies.innerText()).to.contain('not available: the person may no longer answer for this party');
    await page.getByRole('button', { name: 'Keep Companies', exact: true }).click();
    const outcome = page.locator('[aria-live]').filter({ hasText: 'Keep Companies' });
    await outcome.getByText('Skipped:').waitFor();
    const text = await outcome.innerText();
    expect(text).to.match(/Kept:\s*For p_[\w-]+: the person’s version 1, kept as copy version 1/);
    expect(text).to.match(/Skipped:\s*For p_[\w-]+: the person may no longer answer for this party/);

    await page.getByRole('button', { name: 'Keep Name', exact: true }).click();
    await page.locator('[aria-live]').getByText('Keep Name').waitFor();
    await page.getByRole('button', { name: 'Keep Passport', exact: true }).click();
    await page.locator('[aria-live]').getByText('Keep Passport').waitFor();
    expect(await d.copies(requestId), 'a copy of each slot').to.have.length(3);
  });

  it('shows each copy through its schema with its chain of versions, and downloads a kept file', async () => {
    const copy = nameCopy();
    await copy.waitFor();
    const text = await copy.innerText();
    expect(text).to.contain('Given name').and.contain('Ann').and.contain('Family name').and.contain('Example');
    expect(text).to.match(/Version 1: a copy of the person’s version 1/);
    expect(await page.getByRole('article', { name: /^Companies for p_[\w-]+: HRB A/ }).innerText()).to.contain('Registration number');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download Passport', exact: true }).click();
    const file = await download;
    expect(file.suggestedFilename()).to.equal('id.png');
    const stream = await file.createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).to.equal('passport bytes');
  });

  it('Correct through the form pre-filled with the copy: a new correction heads the chain', async () => {
    await nameCopy().getByRole('button', { name: 'Correct Name' }).click();
    const given = nameCopy().getByLabel('Given name');
    expect(await given.inputValue()).to.equal('Ann');
    await given.fill('Anna');
    await nameCopy().getByRole('button', { name: 'Correct', exact: true }).click();
    await nameCopy().getByText('Corrected: the copy is now at version 2.').waitFor();
    const now = await nameCopyNow();
    expect(now).to.deep.include({ currentOrgVersion: 2, currentOrigin: 'correction', currentData: name('Anna') });
    expect(await nameCopy().innerText()).to.match(/Version 2: a correction/);
  });

  it('a stale Correct answers 409: the page re-reads, shows the copy now and what changed, and the retry lands', async () => {
    await nameCopy().getByRole('button', { name: 'Correct Name' }).click();
    const given = nameCopy().getByLabel('Given name');
    await given.fill('Annette');
    // Another member corrects between the form's opening and its sending.
    const between = await d.correct(requestId, slotId(NAME), { expectedSourceVersion: 1, expectedOrgVersion: 2, data: name('Anouk') });
    expect(between.status, JSON.stringify(between.body)).to.equal(200);
    const conflict = page.waitForResponse((r) => r.url().endsWith('/correct'));
    await nameCopy().getByRole('button', { name: 'Correct', exact: true }).click();
    expect((await conflict).status()).to.equal(409);
    const alert = nameCopy().getByRole('alert');
    await alert.getByText(/Someone else changed this copy .* version 3, a correction/).waitFor();
    expect(await alert.innerText()).to.contain('Anouk');
    expect(await given.inputValue(), 'the member’s edit stays').to.equal('Annette');

    await nameCopy().getByRole('button', { name: 'Correct', exact: true }).click();
    await nameCopy().getByText('Corrected: the copy is now at version 4.').waitFor();
    expect(await nameCopyNow()).to.deep.include({ currentOrgVersion: 4, currentData: name('Annette') });
  });

  it('the person publishes a new version: the candidate shows beside the copy, Adopt keeps it; another proposal is Dismissed', async () => {
    await d.updateDoc(ann, nameDoc, name('Ann Two'));
    await proposalOpens(slotId(NAME), 2);
    const proposal = page.getByRole('article', { name: 'Name: the person published version 2' });
    await proposal.getByRole('button', { name: 'Compare version 2 of Name with your copy' }).click();
    const current = proposal.getByRole('region', { name: 'Your copy now' });
    const proposed = proposal.getByRole('region', { name: 'Proposed version' });
    await proposed.waitFor();
    expect(await current.innerText())
      .to.contain('version 4')
      .and.contain('Annette');
    expect(await proposed.innerText())
      .to.contain('Ann Two')
      .and.contain('changed');
    await proposal.getByRole('button', { name: 'Adopt version 2 of Name' }).click();
    await page.getByText('Adopted version 2 of Name: the copy is now at version 5.').waitFor();
    expect(await nameCopyNow()).to.deep.include({ currentOrgVersion: 5, currentOrigin: 'copy', currentData: name('Ann Two') });
    expect((await nameCopyNow()).adoption.sourceVersion).to.equal(2);

    await d.updateDoc(ann, alphaReg, { registrationNumber: 'HRB A2', country: 'DE' });
    await proposalOpens(slotId(COMPANIES), 2);
    await page.getByRole('button', { name: /^Dismiss version 2 of Companies for p_[\w-]+$/ }).click();
    await page.getByText(/^Dismissed version 2 of Companies for p_[\w-]+: the copy stays as it was\.$/).waitFor();
    expect(await d.proposals(requestId)).to.deep.equal([]);
  });

  it('the history timeline shows the keep, the corrections and the adoption, newest first', async () => {
    const entries = await textsOf(section('History').getByRole('list', { name: 'History, newest first' }));
    const at = (text: string) => entries.findIndex((e) => e.startsWith(text));
    const order = [
      'Proposal dismissed',
      'Proposal adopted',
      'Kept the person’s version 2 of Name as copy version 5',
      'Corrected Name: copy version 4',
      'Corrected Name: copy version 2',
      'Kept the person’s version 1 of Name as copy version 1',
      'Invitation sent',
    ].map(at);
    expect(
      order.every((i) => i >= 0),
      JSON.stringify(entries),
    ).to.equal(true);
    expect(order).to.deep.equal([...order].sort((a, b) => a - b));
    expect(entries.at(-1)).to.match(/^Invitation sent .*by /);
  });

  it('axe finds no serious violation on both pages, neither scrolls sideways at 375 px, and Keep, Correct and Adopt are reached by keyboard', async () => {
    await d.updateDoc(ann, nameDoc, name('Ann Three'));
    await proposalOpens(slotId(NAME), 3);
    await nameCopy().getByRole('button', { name: 'Correct Name' }).click();
    await page.getByRole('button', { name: 'Compare version 3 of Name with your copy' }).click();
    await page.getByRole('region', { name: 'Proposed version' }).waitFor();
    expect(await seriousViolations(page), 'detail').to.deep.equal([]);
    await reachByKeyboard(page, 'button', 'Keep Name', 120);
    await reachByKeyboard(page, 'button', 'Correct', 120);
    await reachByKeyboard(page, 'button', 'Adopt version 3 of Name', 120);

    await page.goto(`${base()}${listPath()}`);
    await page.locator('ul.requests > li').first().waitFor();
    expect(await seriousViolations(page), 'list').to.deep.equal([]);

    await page.setViewportSize({ width: 375, height: 800 });
    for (const path of [listPath(), detailPath()]) {
      await page.goto(`${base()}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      if (path === detailPath()) await section('History').waitFor();
      expect(await overflowsSideways(page), path).to.equal(false);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(web.cspErrors).to.deep.equal([]);
  });

  it('a member with only request_read sees the request but no Send invitation, Keep, Correct, Adopt or Dismiss', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in/);
    await signInThroughThePages(web, page, reader.email, listPath());
    await page.getByRole('link', { name: ann.email }).waitFor();
    expect(await page.getByRole('button', { name: 'Send invitation' }).count()).to.equal(0);
    await page.goto(`${base()}${detailPath()}`);
    await section('History').waitFor();
    await page.getByRole('heading', { level: 3, name: 'Name: the person published version 3' }).waitFor();
    expect(await page.getByRole('article', { name: /^Companies/ }).innerText()).to.contain('not available');
    for (const verb of ['Keep', 'Correct', 'Adopt', 'Dismiss', 'Compare'])
      expect(await page.getByRole('button', { name: new RegExp(`^${verb}`) }).count(), verb).to.equal(0);
    expect(await section('Kept copies').count(), 'the copies need request_manage').to.equal(0);
  });

  it("another organization's request is not found", async () => {
    await page.goto(`${base()}/org/${orgA}/requests/${foreignRequest}`);
    await page.getByRole('alert').filter({ hasText: 'This request was not found.' }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).count()).to.equal(0);
  });
});
