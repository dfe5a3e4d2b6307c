import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { mainBackend } from '../support/databases.js';
import { openBrowser, type Browser } from './support/browser.js';
import { codeFromMailbox, signInThroughThePages, startWebService, type WebService } from './support/web-service.js';

/** Where the screenshots go: docs/screenshots with `npm run screenshots`, else a scratch directory. */
const SHOTS = resolve(process.env.SCREENSHOTS_DIR ?? join(tmpdir(), 'dss-screenshots'));
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

type Copy = { readonly currentOrigin: 'copy' | 'correction' };

/**
 * Issue 44's two journeys, end to end against a real service with its copy workers, each side in
 * its own browser: an organization founds itself, writes a manifest and invites a person; the
 * person follows the mail's link, signs in, shares two documents and a file and accepts; the
 * organization keeps, corrects, and adopts the person's next version; the person sees all of it,
 * revokes, exports and erases the account. The screenshots in docs/ come from here.
 */
describe(`§11 both journeys end to end in a browser (issue 44; ${mainBackend})`, function () {
  this.timeout(120_000);
  let web: WebService;
  let orgBrowser: Browser;
  let person: Page;
  let org: Page;
  const founder = `f${randomBytes(5).toString('hex')}@example.com`;
  const reader = `r${randomBytes(5).toString('hex')}@example.com`;
  const ann = `a${randomBytes(5).toString('hex')}@example.com`;
  let organizationId: string;
  let requestId: string;
  /** The founder's member token, for checking through the API what the pages did. */
  let member: string;

  before(async function () {
    web = await startWebService(this, { workers: true });
    orgBrowser = await openBrowser();
    org = await orgBrowser.context.newPage();
    person = await web.browser.context.newPage();
    for (const page of [org, person]) await page.setViewportSize({ width: 1280, height: 900 });
    await mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await orgBrowser?.close();
    await web?.close();
  });

  /** A screenshot of what a 1280×900 window shows (the README's size), or of one part of the page. */
  const shot = (what: Page | Locator, name: string) => what.screenshot({ path: join(SHOTS, `${name}.png`) });
  const slot = (n: number) => org.getByRole('group', { name: `Slot ${n}`, exact: true });
  const slotCard = (label: string) => person.getByRole('listitem').filter({ has: person.getByRole('heading', { name: label, level: 3 }) });
  const copies = async () => (await web.api.get(`/org/v1/requests/${requestId}/copies`, member)).body.copies as Copy[];

  async function fillSlot(s: Locator, f: { label: string; schema?: string; file?: string; automatic: boolean; required: boolean }) {
    await s.getByLabel('Label', { exact: true }).fill(f.label);
    await s.getByLabel(/^Group/).fill('Onboarding');
    if (f.file) {
      await s.getByLabel('Kind').selectOption('file');
      await s.getByLabel(/^What file/).fill(f.file);
    } else await s.getByLabel('Schema', { exact: true }).selectOption(f.schema!);
    await s.getByLabel(/^Keep:/).setChecked(true);
    await s.getByLabel(f.automatic ? /^Automatic/ : /^Manual/).check();
    await s.getByLabel(/^Required/).setChecked(f.required);
  }

  it('the organization founds itself, writes a manifest with a preview and sends an invitation, all on its pages', async () => {
    await signInThroughThePages(web, org, founder, '/organizations');
    await org.getByLabel('Name of the organization').fill('Acme Clinic');
    await org.getByRole('button', { name: 'Create organization' }).click();
    await org.waitForURL(new RegExp(`/org/${UUID.source}/requests$`));
    organizationId = UUID.exec(org.url())![0];

    await org.getByRole('navigation', { name: 'Organization' }).getByRole('link', { name: 'Manifests' }).click();
    await org.getByRole('button', { name: 'New manifest' }).click();
    await org.getByLabel(/^Name/).fill('Patient onboarding');
    await org.getByLabel(/^Why you ask/).fill('To register you as a patient');
    await org.getByLabel('Number', { exact: true }).fill('90');
    await fillSlot(slot(1), { label: 'Name', schema: 'PersonFullName', automatic: false, required: true });
    await org.getByRole('button', { name: 'Add slot' }).click();
    await fillSlot(slot(2), { label: 'Address', schema: 'PersonAddress', automatic: true, required: true });
    await org.getByRole('button', { name: 'Add slot' }).click();
    await fillSlot(slot(3), { label: 'Insurance card', file: 'InsuranceCard', automatic: false, required: false });
    const preview = org.getByRole('region', { name: 'Preview: what the person will see' });
    expect(await preview.innerText())
      .to.contain('To register you as a patient')
      .and.contain('90 days')
      .and.contain('get your updates automatically');
    await preview.scrollIntoViewIfNeeded();
    await shot(org, 'org-manifest-editor');
    await org.getByRole('button', { name: 'Publish', exact: true }).click();
    await org.getByText('Published version 1 of Patient onboarding.').waitFor();

    await org.getByRole('navigation', { name: 'Organization' }).getByRole('link', { name: 'Requests' }).click();
    const send = org.locator('section', { has: org.getByRole('heading', { level: 2, name: 'Send an invitation' }) });
    await send.getByLabel('Manifest').selectOption({ label: 'Patient onboarding (version 1)' });
    await send.getByLabel('Recipient’s email').fill(ann);
    await send.getByRole('button', { name: 'Send invitation' }).click();
    await org.getByRole('link', { name: ann }).waitFor();
    requestId = /\/requests\/([\w-]+)$/.exec((await org.getByRole('link', { name: ann }).getAttribute('href'))!)![1]!;
    // The founder's API token, to check what the pages did (a second code to the same address).
    const founderUser = await web.api.user({ email: founder });
    member = await web.api.signIn(founderUser.token, organizationId);
  });

  it('the person follows the invitation mail’s link, signs in, and lands on the request in plain words', async () => {
    const mail = web.mailer.sent.find((m) => m.to === ann && m.text.includes('/requests/'));
    const link = new RegExp(`${web.base}/requests/[\\w-]+`).exec(mail?.text ?? '')?.[0];
    expect(link, mail?.text).to.equal(`${web.base}/requests/${requestId}`);
    await signInThroughThePages(web, person, ann, new URL(link!).pathname);
    await person.getByRole('heading', { level: 1, name: 'Acme Clinic: Patient onboarding' }).waitFor();
    const consent = await person.getByRole('region', { name: 'What Acme Clinic asks for' }).innerText();
    expect(consent).to.contain('To register you as a patient').and.contain('90 days');
    expect(await slotCard('Name').innerText())
      .to.contain('Required')
      .and.contain('ask before taking an update');
    expect(await slotCard('Address').innerText()).to.contain('get your updates automatically');
    expect(await slotCard('Insurance card').innerText()).to.contain('Optional');
    await shot(person, 'person-consent');
  });

  it('the person keeps a document in the vault, then shares it, one made on the spot and a file, and accepts', async () => {
    await person.getByRole('link', { name: 'Vault' }).click();
    await person.getByRole('button', { name: 'New document' }).click();
    await person.getByLabel('Kind of document').selectOption({ label: 'Person full name' });
    await person.getByLabel('Name', { exact: true }).fill('My legal name');
    const form = person.locator('#new-document');
    await form.getByLabel('Given name').fill('Ann');
    await form.getByLabel('Family name').fill('Lee');
    await form.getByRole('button', { name: 'Publish', exact: true }).click();
    await person.getByRole('heading', { name: 'My legal name' }).waitFor();
    await shot(person, 'person-vault');

    await person.goto(`${web.base}/requests/${requestId}`);
    await slotCard('Name').getByLabel('My legal name').check();
    await person.getByRole('button', { name: 'Add a new person address for Address' }).click();
    const address = slotCard('Address');
    await address.getByLabel('Street').fill('Main Street');
    await address.getByLabel('Locality').fill('Berlin');
    await address.getByLabel('Country').fill('DE');
    await person.getByRole('button', { name: 'Save and choose for Address' }).click();
    await person.getByRole('status').filter({ hasText: 'chosen for Address' }).waitFor();
    await person.getByRole('button', { name: 'Add a new file for Insurance card' }).click();
    const card = { name: 'insurance-card.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 an insurance card') };
    await person.getByLabel('Upload a file for Insurance card').setInputFiles(card);
    await person.getByRole('status').filter({ hasText: 'chosen for Insurance card' }).waitFor();
    await person.getByRole('button', { name: 'Accept' }).click();
    await person.getByRole('status').filter({ hasText: 'You accepted' }).waitFor();

    const detail = (await web.api.get(`/org/v1/requests/${requestId}`, member)).body as {
      request: { state: string };
      items: Array<{ records: unknown[] }>;
    };
    expect(detail.request.state).to.equal('active');
    expect(detail.items.map((i) => i.records.length)).to.deep.equal([1, 1, 1]);
  });

  it('the organization keeps, corrects, and adopts the person’s next version on its pages', async () => {
    await web.eventually(async () => (await copies()).length === 1, 'the automatic copy of the address');
    await org.goto(`${web.base}/org/${organizationId}/requests`);
    await org.getByRole('link', { name: ann }).click();
    await org.getByRole('button', { name: 'Keep Name', exact: true }).click();
    await org.getByRole('button', { name: 'Keep Insurance card', exact: true }).click();
    await web.eventually(async () => (await copies()).length === 3, 'three copies kept');

    const nameCopy = org.getByRole('article', { name: /^Name: / });
    await nameCopy.getByRole('button', { name: 'Correct Name' }).click();
    await nameCopy.getByLabel('Family name').fill('Lee-Smith');
    await nameCopy.getByRole('button', { name: 'Correct', exact: true }).click();
    await web.eventually(async () => (await copies()).some((c) => c.currentOrigin === 'correction'), 'the correction');

    // The person publishes a new version of the name: the organization is asked before it takes it.
    await person.goto(`${web.base}/vault`);
    const mine = person.getByRole('article').filter({ has: person.getByRole('heading', { name: 'My legal name' }) });
    await mine.getByRole('button', { name: 'Publish a new version' }).click();
    await mine.getByLabel('Given name').fill('Anna');
    await mine.getByRole('button', { name: 'Publish', exact: true }).click();
    await mine.getByText('Version 2, published').waitFor();
    await web.eventually(
      async () => ((await web.api.get(`/org/v1/requests/${requestId}/proposals`, member)).body.proposals as unknown[]).length === 1,
      'the proposal of version 2',
    );

    await org.reload();
    await org.getByRole('button', { name: 'Compare version 2 of Name with your copy' }).click();
    await org.getByRole('region', { name: 'Proposed version' }).scrollIntoViewIfNeeded();
    await shot(org, 'org-request-detail');
    await org.getByRole('button', { name: 'Adopt version 2 of Name' }).click();
    await web.eventually(
      async () => ((await web.api.get(`/org/v1/requests/${requestId}/proposals`, member)).body.proposals as unknown[]).length === 0,
      'the proposal closed by the adoption',
    );
  });

  it('the person sees each of those on the request’s page: the copies, the correction, the read and the adoption', async () => {
    await person.goto(`${web.base}/requests/${requestId}`);
    const holds = person.getByRole('region', { name: 'Who holds what' });
    await holds
      .getByText(/Acme Clinic kept a copy of “My legal name”/)
      .first()
      .waitFor();
    const text = await holds.innerText();
    expect(text).to.match(/Acme Clinic kept a copy of “My legal name” \(shared as Name\): your version 1/);
    expect(text).to.match(/A copy of “Person address” \(shared as Address\), your version 1, kept [^\n]* automatically/);
    expect(text).to.match(/Acme Clinic kept a copy of “insurance-card.pdf” \(shared as Insurance card\)/);
    expect(text).to.match(/Acme Clinic corrected its copy of “My legal name”/);
    expect(text).to.match(/Acme Clinic read version 2 of “My legal name”/);
    expect(text).to.match(/Acme Clinic kept a copy of “My legal name” \(shared as Name\): your version 2/);
    expect(text, 'members are pseudonyms')
      .to.match(/by a member of Acme Clinic \(ref [A-Za-z0-9_-]{16,}\)/)
      .and.not.contain(founder);
    await shot(holds, 'person-who-holds-what');
  });

  it('a member with only request_read sees the request but no Keep or Correct; another organization’s request is not found', async () => {
    await org.goto(`${web.base}/org/${organizationId}/members`);
    await org.getByLabel('Email address of the new member').fill(reader);
    await org.getByLabel('See requests and what people shared').first().check();
    await org.getByRole('button', { name: 'Add member' }).click();
    await org.getByRole('heading', { name: reader }).waitFor();
    await org.getByRole('button', { name: 'Sign out' }).click();
    await org.waitForURL(/\/sign-in/);

    await signInThroughThePages(web, org, reader, `/org/${organizationId}/requests/${requestId}`);
    await org.getByRole('heading', { level: 1 }).waitFor();
    await org.getByText('Insurance card').first().waitFor();
    expect(await org.getByRole('button', { name: /^(Keep|Correct|Adopt|Dismiss)/ }).count()).to.equal(0);

    const rival = await web.api.user();
    const rivalMember = await web.api.signIn(rival.token, await web.api.organization(rival.token, 'Rival Clinic'));
    const manifest = await web.api.post('/org/v1/manifests', rivalMember, {
      name: 'Theirs',
      purpose: 'Their own reasons',
      retention: 'P30D',
      slots: [
        { label: 'Name', group: 'KYC', multiple: false, kind: 'schema', target: 'PersonFullName', verbs: ['keep'], adoption: 'manual' },
      ],
    });
    const theirs = await web.api.post('/org/v1/requests', rivalMember, {
      manifestId: (manifest.body.manifest as { manifestId: string }).manifestId,
      recipientEmail: ann,
    });
    const theirRequest = (theirs.body.request as { requestId: string }).requestId;
    await org.goto(`${web.base}/org/${organizationId}/requests/${theirRequest}`);
    await org.getByText('This request was not found.').waitFor();
  });

  it('the person revokes the connection, exports everything, and erases the account with the mailed code', async () => {
    await person.goto(`${web.base}/requests/${requestId}`);
    await person.getByRole('button', { name: 'Revoke' }).click();
    await person.getByRole('button', { name: 'Yes, revoke' }).click();
    await person.getByText('Ended by you').first().waitFor();
    const state = (await web.api.get(`/org/v1/requests/${requestId}`, member)).body.request as { state: string };
    expect(state.state).to.equal('revoked');

    await person.getByRole('link', { name: 'Account' }).click();
    await person.getByText('This session', { exact: true }).waitFor();
    await shot(person, 'person-account');
    const [download] = await Promise.all([
      person.waitForEvent('download'),
      person.getByRole('button', { name: 'Export', exact: true }).click(),
    ]);
    const archive = await readFile(await download.path(), 'utf8');
    expect(archive).to.contain('My legal name').and.contain('insurance-card.pdf');

    await person.getByRole('button', { name: 'Send a code to confirm erasure' }).click();
    // The field shows once the code was mailed: only then is the newest mail the erasure's.
    await person.getByLabel('Code from the mail').waitFor();
    await person.getByLabel('Code from the mail').fill(await codeFromMailbox(web, ann));
    await person.getByRole('button', { name: 'Erase account' }).click();
    await person.waitForURL(/\/sign-in/);
    const after = await web.api.get(`/org/v1/requests/${requestId}`, member);
    expect((after.body.request as { state: string }).state, 'the connection stays ended').to.equal('revoked');
    expect(web.cspErrors).to.deep.equal([]);
  });

  it('takes the screenshots of the sign-in page and the person’s and the organization’s lists', async () => {
    await person.goto(`${web.base}/sign-in`);
    await person.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shot(person, 'sign-in');
    await org.goto(`${web.base}/org/${organizationId}/requests`);
    await org.getByRole('link', { name: ann }).waitFor();
    await shot(org, 'org-requests');
  });
});
