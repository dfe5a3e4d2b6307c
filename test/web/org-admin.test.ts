import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { driver, MANUAL_NAME_SLOT } from '../api/support/driver.js';
import { mainBackend } from '../support/databases.js';
import { openBrowser, type Browser } from './support/browser.js';
import {
  overflowsSideways,
  reachByKeyboard,
  seriousViolations,
  signInThroughThePages,
  startWebService,
  type WebService,
} from './support/web-service.js';

type Slot = { slotId: string; label: string; target: string; verbs: string[]; adoption: string; required: boolean };
type Manifest = { manifestId: string; name: string; version: number; slots: Slot[] };

const address = (who: string) => `${who}${randomBytes(5).toString('hex')}@example.com`;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe(`§11 an organization's admin pages in a browser (R-WEB-40 to R-WEB-45; ${mainBackend})`, function () {
  this.timeout(90_000);
  let web: WebService;
  let base: string;
  let page: Page;
  const founder = address('f');
  let orgId: string;
  let rivalOrgId: string;
  /** The founder's member token in `orgId`, to check through the API what the pages did. */
  let member: string;
  let manifestId: string;

  before(async function () {
    web = await startWebService(this);
    base = web.base;
    const rival = await web.api.user();
    rivalOrgId = await web.api.organization(rival.token, 'Rival Bank');
    page = await web.browser.context.newPage();
  });
  after(() => web?.close());

  const slot = (n: number) => page.getByRole('group', { name: `Slot ${n}`, exact: true });
  const preview = () => page.getByRole('region', { name: 'Preview: what the person will see' });
  const manifestOf = async (id: string) => (await web.api.get(`/org/v1/manifests/${id}`, member)).body.manifest as Manifest;

  async function createOrganization(name: string): Promise<string> {
    await page.getByLabel('Name of the organization').fill(name);
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.waitForURL(new RegExp(`^${base}/org/${UUID.source}/requests$`));
    return UUID.exec(page.url())![0];
  }

  /** Fills a slot of the editor: label, group, a built-in, the verbs ticked, and how updates come. */
  async function fillSlot(s: Locator, f: { label: string; schema: string; verbs: string[]; automatic: boolean; required: boolean }) {
    await s.getByLabel('Label', { exact: true }).fill(f.label);
    await s.getByLabel(/^Group/).fill('KYC');
    await s.getByLabel('Schema', { exact: true }).selectOption(f.schema);
    for (const verb of ['Fill', 'Edit', 'Keep']) await s.getByLabel(new RegExp(`^${verb}:`)).setChecked(f.verbs.includes(verb));
    await s.getByLabel(f.automatic ? /^Automatic/ : /^Manual/).check();
    await s.getByLabel(/^Required/).setChecked(f.required);
  }

  it('signs in through the pages, creates an organization on /organizations and lands in it; the switcher moves between two', async () => {
    await signInThroughThePages(web, page, founder, '/organizations');
    await page.getByText('You are not a member of any organization yet.').waitFor();
    orgId = await createOrganization('Acme Bank');
    const switcher = page.locator('select#org-switch');
    await switcher.locator('option', { hasText: 'Acme Bank' }).waitFor({ state: 'attached' });
    expect(await switcher.inputValue()).to.equal(orgId);

    await page.getByRole('link', { name: 'Organizations' }).click();
    await page.getByRole('link', { name: 'Acme Bank' }).waitFor();
    const insuranceId = await createOrganization('Acme Insurance');
    await switcher.locator('option', { hasText: 'Acme Insurance' }).waitFor({ state: 'attached' });
    expect(await page.getByLabel('Organization', { exact: true }).locator('option').allInnerTexts()).to.have.members([
      'Acme Bank',
      'Acme Insurance',
    ]);
    // A choice alone changes nothing (WCAG 3.2.2); Go moves.
    await switcher.selectOption(orgId);
    expect(page.url()).to.equal(`${base}/org/${insuranceId}/requests`);
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    await page.waitForURL(`${base}/org/${orgId}/requests`);
    await switcher.selectOption(insuranceId);
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    await page.waitForURL(`${base}/org/${insuranceId}/requests`);

    member = await web.api.signIn((await web.api.user({ email: founder })).token, orgId);
  });

  it('creates a manifest with two slots through the slot editor, the preview saying them in words as they are edited; Publish lists it', async () => {
    await page.goto(`${base}/org/${orgId}/manifests`);
    await page.getByText('There are no manifests yet.').waitFor();
    await page.getByRole('button', { name: 'New manifest' }).click();
    await page.getByLabel(/^Name/).fill('Know your customer');
    await page.getByLabel(/^Why you ask/).fill('To open your account');
    await page.getByLabel('Number', { exact: true }).fill('30');
    await fillSlot(slot(1), { label: 'Full name', schema: 'PersonFullName', verbs: ['Fill', 'Keep'], automatic: true, required: true });
    const first = preview().getByRole('listitem').nth(0);
    expect(await first.innerText())
      .to.contain('Full name')
      .and.contain('Required')
      .and.contain('get your updates automatically');
    expect(await preview().innerText())
      .to.contain('To open your account')
      .and.contain('30 days')
      .and.contain('Acme Bank');

    await page.getByRole('button', { name: 'Add slot' }).click();
    await fillSlot(slot(2), { label: 'Address', schema: 'PersonAddress', verbs: ['Keep'], automatic: false, required: false });
    expect(await preview().getByRole('listitem').nth(1).innerText())
      .to.contain('Address')
      .and.contain('Optional')
      .and.contain('ask before');

    // A third slot, moved up and removed again: the two edited slots stay as they were.
    await page.getByRole('button', { name: 'Add slot' }).click();
    await slot(3).getByLabel('Label', { exact: true }).fill('Passport');
    await slot(3).getByLabel('Kind').selectOption('file');
    await slot(3)
      .getByLabel(/^What file/)
      .fill('PassportScan');
    await page.getByRole('button', { name: 'Move up slot 3' }).click();
    expect(await slot(2).getByLabel('Label', { exact: true }).inputValue()).to.equal('Passport');
    expect(await preview().getByRole('listitem').nth(1).innerText())
      .to.contain('Passport')
      .and.contain('A file');
    await page.getByRole('button', { name: 'Remove slot 2' }).click();
    expect(await preview().getByRole('listitem').count()).to.equal(2);

    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published version 1 of Know your customer.').waitFor();
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Know your customer' }) });
    expect(await card.innerText())
      .to.contain('Version 1')
      .and.contain('Full name (required), Address');

    const [listed] = (await web.api.get('/org/v1/manifests', member)).body.manifests as Manifest[];
    manifestId = listed!.manifestId;
    expect(
      listed!.slots.map(({ label, target, verbs, adoption, required }) => ({ label, target, verbs, adoption, required })),
    ).to.deep.equal([
      { label: 'Full name', target: 'PersonFullName', verbs: ['fill', 'keep'], adoption: 'auto', required: true },
      { label: 'Address', target: 'PersonAddress', verbs: ['keep'], adoption: 'manual', required: false },
    ]);
  });

  it('publishes version 2 from the editor: the API has version 2 with the slots as edited, their slotIds carried over', async () => {
    const v1 = await manifestOf(manifestId);
    await page.getByRole('button', { name: 'Prepare version 2' }).click();
    expect(await slot(1).getByLabel('Label', { exact: true }).inputValue()).to.equal('Full name');
    await slot(2).getByLabel('Label', { exact: true }).fill('Home address');
    await slot(2)
      .getByLabel(/^Required/)
      .check();
    await page.getByRole('button', { name: 'Add slot' }).click();
    await fillSlot(slot(3), { label: 'Tax residency', schema: 'PersonTaxResidency', verbs: ['Keep'], automatic: false, required: false });
    expect(await preview().getByRole('listitem').nth(1).innerText())
      .to.contain('Home address')
      .and.contain('Required');
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published version 2 of Know your customer.').waitFor();

    const v2 = await manifestOf(manifestId);
    expect(v2.version).to.equal(2);
    expect(v2.slots.map((s) => [s.label, s.required])).to.deep.equal([
      ['Full name', true],
      ['Home address', true],
      ['Tax residency', false],
    ]);
    expect(v2.slots.slice(0, 2).map((s) => s.slotId)).to.deep.equal(v1.slots.map((s) => s.slotId));
    expect(v1.slots.map((s) => s.slotId)).to.not.include(v2.slots[2]!.slotId);

    // Earlier versions stay readable as the person read them.
    await page.getByRole('button', { name: 'Show versions' }).click();
    await page.getByLabel('Version', { exact: true }).selectOption('1');
    await page.getByText('The person read it like this:').waitFor();
    await page.locator('.consent', { hasText: 'Address' }).waitFor();
  });

  it('members: adds one by email with only request_read, listed with it and mailed; changes and removes them', async () => {
    const newcomer = address('m');
    await page.goto(`${base}/org/${orgId}/members`);
    await page.getByText(founder).first().waitFor();
    await page.getByLabel('Email address of the new member').fill(newcomer);
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByText(`Added ${newcomer}. A mail is on its way to them.`).waitFor();
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: newcomer }) });
    await card.waitFor();
    const ticked = await card
      .getByRole('checkbox')
      .evaluateAll((boxes) => (boxes as HTMLInputElement[]).filter((b) => b.checked).map((b) => b.labels?.[0]?.textContent));
    expect(ticked).to.deep.equal(['See requests and what people shared']);
    const mail = web.mailer.sent.find((m) => m.to === newcomer);
    expect(mail?.text).to.contain('Acme Bank').and.contain(`${base}/org/${orgId}/requests`);

    await card.getByLabel('Send and manage requests').check();
    await card.getByRole('button', { name: 'Save permissions' }).click();
    await card.getByText('Saved.').waitFor();
    const listed = (await web.api.get('/org/v1/members', member)).body.members as Array<{ email: string; permissions: string[] }>;
    expect(listed.find((m) => m.email === newcomer)?.permissions).to.have.members(['request_read', 'request_manage']);

    await card.getByRole('button', { name: 'Remove' }).click();
    await card.getByRole('button', { name: 'Yes, remove' }).click();
    await card.waitFor({ state: 'detached' });
    const after = (await web.api.get('/org/v1/members', member)).body.members as Array<{ email: string }>;
    expect(after.map((m) => m.email)).to.not.include(newcomer);
  });

  it('shows a member only what their permissions allow: no Publish or slot editor, no add-member control, a 403 in words', async () => {
    const reader = address('r');
    expect((await web.api.put(`/org/v1/members/${reader}`, member, { permissions: ['request_read'] })).status).to.equal(200);
    const second: Browser = await openBrowser();
    try {
      const theirs = await second.context.newPage();
      await signInThroughThePages(web, theirs, reader, `/org/${orgId}/manifests`);
      await theirs.getByRole('heading', { name: 'Know your customer' }).waitFor();
      await theirs.getByText('Your permissions let you read the manifests, not write them.').waitFor();
      for (const name of [/Publish/, /New manifest/, /Prepare version/])
        expect(await theirs.getByRole('button', { name }).count(), String(name)).to.equal(0);
      expect(await theirs.getByRole('group', { name: /^Slot/ }).count()).to.equal(0);

      await theirs.getByRole('link', { name: 'Members' }).click();
      await theirs.getByText('Only a member who may manage members').waitFor();
      expect(await theirs.getByRole('button', { name: 'Add member' }).count()).to.equal(0);
      expect(await theirs.getByRole('textbox').count()).to.equal(0);

      await theirs.getByRole('link', { name: 'Settings' }).click();
      await theirs
        .getByText(/^(Warm|Cold)/)
        .first()
        .waitFor();
      for (const name of ['Seal the key', 'Register app']) expect(await theirs.getByRole('button', { name }).count(), name).to.equal(0);

      // Permissions are judged on every call: taken away, the page says so instead of breaking.
      expect((await web.api.put(`/org/v1/members/${reader}`, member, { permissions: ['member_manage'] })).status).to.equal(200);
      await theirs.goto(`${base}/org/${orgId}/manifests`);
      await theirs.getByRole('alert').filter({ hasText: 'Your permissions in this organization do not include this.' }).waitFor();
    } finally {
      await second.close();
    }
  });

  it('settings: registers an app and shows its client ID; the key shows warm, and Seal makes it cold', async () => {
    await page.goto(`${base}/org/${orgId}/settings`);
    await page.getByText(/^Warm until/).waitFor();
    await page.getByLabel('Name of the app').fill('Onboarding portal');
    await page.getByRole('button', { name: 'Register app' }).click();
    const registered = page.getByRole('status').filter({ hasText: 'Registered Onboarding portal.' });
    const clientId = UUID.exec(await registered.innerText())?.[0];
    await page.getByRole('cell', { name: clientId }).waitFor();
    const apps = (await web.api.get('/org/v1/apps', member)).body.apps as Array<{ clientId: string; name: string }>;
    expect(apps.map((a) => [a.clientId, a.name])).to.deep.equal([[clientId, 'Onboarding portal']]);

    await page.getByRole('button', { name: 'Seal the key' }).click();
    await page.getByText('Cold.', { exact: true }).waitFor();
    expect((await web.api.get('/org/v1/key', member)).body).to.deep.equal({ state: 'cold' });
  });

  it("another organization's page says it was not found", async () => {
    await page.goto(`${base}/org/${rivalOrgId}/manifests`);
    await page.getByRole('alert').filter({ hasText: 'This organization was not found.' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Manifests' }).count()).to.equal(0);
  });

  /** Each admin page with its content in place, the manifest editor open. */
  async function eachPage(check: (path: string) => Promise<void>): Promise<void> {
    for (const path of ['/organizations', `/org/${orgId}/manifests`, `/org/${orgId}/members`, `/org/${orgId}/settings`]) {
      await page.goto(`${base}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForFunction(() => !document.body.innerText.includes('Loading…'));
      if (path.endsWith('/manifests')) {
        await page.getByRole('button', { name: 'New manifest' }).click();
        await page.getByRole('button', { name: 'Add slot' }).click();
        await page.getByRole('button', { name: 'Show versions' }).click();
        await page.getByText('The person read it like this:').waitFor();
      }
      await check(path);
    }
  }

  it('axe-core finds no serious or critical violation on the admin pages', async () => {
    await eachPage(async (path) => {
      expect(await seriousViolations(page), path).to.deep.equal([]);
    });
  });

  it('works at 375 px wide without sideways scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      await eachPage(async (path) => {
        expect(await overflowsSideways(page), path).to.equal(false);
      });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('reaches Publish and the slot editor’s controls by keyboard', async () => {
    await page.goto(`${base}/org/${orgId}/manifests`);
    await page.getByRole('button', { name: 'New manifest' }).click();
    await page.getByRole('button', { name: 'Add slot' }).click();
    await reachByKeyboard(page, 'textbox', 'Label');
    await reachByKeyboard(page, 'combobox', 'Schema');
    await reachByKeyboard(page, 'checkbox', /^Fill:/);
    // A radio group is one stop of Tab; the arrow keys choose within it.
    await reachByKeyboard(page, 'radio', /^Manual/);
    await page.keyboard.press('ArrowDown');
    expect(
      await page
        .getByRole('radio', { name: /^Automatic/ })
        .first()
        .isChecked(),
    ).to.equal(true);
    await reachByKeyboard(page, 'checkbox', /^Required/);
    await reachByKeyboard(page, 'button', 'Move up slot 2');
    await reachByKeyboard(page, 'button', 'Remove slot 2');
    await reachByKeyboard(page, 'button', 'Add slot');
    await reachByKeyboard(page, 'button', 'Publish');
    expect(web.cspErrors).to.deep.equal([]);
  });

  it('the manifest editor says so when the built-in schemas cannot be read', async () => {
    await page.route('**/schemas/core', (route) => route.abort());
    try {
      await page.goto(`${base}/org/${orgId}/manifests`);
      await page.getByRole('button', { name: 'New manifest' }).click();
      await page.getByRole('alert').filter({ hasText: 'The built-in schemas could not be read' }).waitFor();
    } finally {
      await page.unroute('**/schemas/core');
    }
  });

  it('a request’s page with the key sealed shows the items and history and says the copies are sealed; Unseal shows them', async () => {
    const d = driver({ api: () => web.api, member: () => member });
    const person = await web.api.user();
    const data = { givenName: 'Ann', familyName: 'Example' };
    const doc = await d.createDoc(person, { name: 'Legal name', schemaRef: `${base}/schemas/core/PersonFullName.json`, data });
    const proof = await d.manifest([MANUAL_NAME_SLOT], 'P30D', { name: 'Proof of name' });
    const slotId = proof.slots[0]!.slotId;
    // Signing in warms the key the settings test sealed, so the copy can be kept.
    member = await web.api.signIn((await web.api.user({ email: founder })).token, orgId);
    const requestId = await d.connected(proof.manifestId, person, { [slotId]: [doc] });
    await d.kept(requestId, slotId);
    await page.goto(`${base}/org/${orgId}/requests`);
    const link = page.getByRole('link', { name: person.email });
    await link.waitFor();
    // Sealed while the pages are open: moving to the request does not sign in again.
    expect((await web.api.post('/org/v1/key/seal', member)).status).to.equal(200);
    await link.click();

    const history = page.getByRole('list', { name: 'History, newest first' });
    await history.waitFor();
    expect(await history.innerText()).to.contain('Invitation sent');
    expect(await page.getByRole('article', { name: /^Name Shared/ }).innerText())
      .to.contain('available, version 1.')
      .and.contain('Copy of version 1 kept');
    const copies = page.locator('section', { has: page.getByRole('heading', { level: 2, name: 'Kept copies' }) });
    await copies.getByText('The organization’s key is sealed: copies cannot be opened.').waitFor();
    await copies.getByRole('button', { name: 'Unseal by signing in again' }).click();
    // What the organization uses today: the copy's head, shown through its schema.
    await page
      .getByRole('article', { name: /^Name: Legal name/ })
      .getByRole('definition')
      .first()
      .getByText('Ann')
      .waitFor();
    expect((await web.api.get('/org/v1/key', member)).body).to.have.property('state', 'warm');
  });
});
