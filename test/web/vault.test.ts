import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Locator, Page } from 'playwright-core';
import { mainBackend } from '../support/databases.js';
import { SAMPLES } from '../schemas/builtin-samples.js';
import {
  overflowsSideways,
  reachByKeyboard,
  seriousViolations,
  signInThroughThePages,
  startWebService,
  type WebService,
} from './support/web-service.js';

const CREATE = 'mutation($input: DocumentInput!) { user { document { create(input: $input) { id } } } }';
const DOCUMENT = 'query($id: ID!) { user { document(id: $id) { version data versions { version } } } }';

/** The answers of the person's GraphQL calls below, as far as the tests read them. */
type Created = { user: { document: { create: { id: string } } } };
type Read = { user: { document: { version: number; data: unknown; versions: { version: number }[] } } };
type Listed = { user: { documents: { name: string; data?: unknown; version: number }[] } };
type Entities = { user: { entities: { entityId: string; name: string; members: { email: string; role: string }[] }[] } };
type Files = { user: { files: { label: string | null; owner: string | null }[] } };

describe(`§11 the vault in a browser (R-WEB-20 to R-WEB-25; ${mainBackend})`, function () {
  this.timeout(120_000);
  let web: WebService;
  let page: Page;
  let token: string;
  const person = `v${randomBytes(5).toString('hex')}@example.com`;
  /** Built-in ids by name, as the service serves them. */
  const builtIns = new Map<string, string>();

  before(async function () {
    web = await startWebService(this);
    ({ token } = await web.api.user({ email: person }));
    const listed = await web.api.get('/schemas/core');
    for (const s of listed.body.schemas as { name: string; id: string }[]) builtIns.set(s.name, s.id);
    page = await web.browser.context.newPage();
    await signInThroughThePages(web, page, person, '/vault');
  });
  after(() => web?.close());

  /** A GraphQL call of the person's, through the API with a token of theirs. */
  async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const r = await web.api.post('/graphql', token, { query, variables });
    expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined);
    return r.body.data as T;
  }
  const card = (name: string): Locator => page.locator('article', { has: page.getByRole('heading', { name, exact: true }) });
  /** Waits for the page to say `text`; on failure, says what the card shows instead (a form's errors). */
  async function announced(text: string, where: Locator): Promise<void> {
    try {
      await page.getByRole('status').filter({ hasText: text }).waitFor({ timeout: 10_000 });
    } catch {
      expect.fail(`"${text}" was not announced; the page shows:\n${await where.innerText()}`);
    }
  }

  it('every one of the 24 built-ins renders as a form and publishes unchanged as version 2 with the same data', async () => {
    expect(builtIns.size).to.equal(24);
    const ids = new Map<string, string>();
    for (const name of builtIns.keys()) {
      const data = SAMPLES[name as keyof typeof SAMPLES];
      const made = await gql<Created>(CREATE, { input: { name: `Sample ${name}`, schemaRef: builtIns.get(name), data } });
      ids.set(name, made.user.document.create.id);
    }
    await page.goto(`${web.base}/vault`);
    for (const [name, id] of ids) {
      const doc = card(`Sample ${name}`);
      await doc.getByRole('button', { name: 'Publish a new version' }).click();
      await doc.getByRole('button', { name: 'Publish', exact: true }).click();
      await announced(`Published version 2 of Sample ${name}.`, doc);
      const read = (await gql<Read>(DOCUMENT, { id })).user.document;
      expect(read.version, name).to.equal(2);
      expect(read.data, name).to.deep.equal(SAMPLES[name as keyof typeof SAMPLES]);
    }
  });

  it('lists documents by schema, in words, each with its versions', async () => {
    await page.goto(`${web.base}/vault`);
    const group = page.getByRole('region', { name: 'Person bank account' });
    await group.getByRole('heading', { name: 'Sample PersonBankAccount' }).waitFor();
    const versions = await card('Sample PersonBankAccount').getByRole('list', { name: 'Versions of Sample PersonBankAccount' }).innerText();
    expect(versions).to.match(/Version 1, published[\s\S]*Version 2, published/);
    await card('Sample PersonBankAccount').getByRole('button', { name: 'Show version 1' }).click();
    const earlier = page.getByRole('group', { name: 'Version 1 of Sample PersonBankAccount' });
    expect(await earlier.innerText()).to.contain(String((SAMPLES.PersonBankAccount as { iban: string }).iban));
  });

  it('creates a document through the form (a built-in, a name, its fields, Publish) and publishes a new version of it', async () => {
    await page.goto(`${web.base}/vault`);
    await page.getByRole('button', { name: 'New document' }).click();
    await page.getByLabel('Kind of document').selectOption({ label: 'Person full name' });
    await page.getByLabel('Name', { exact: true }).fill('My legal name');
    const form = page.locator('#new-document');
    await form.getByLabel('Given name').fill('Ann');
    await form.getByLabel('Family name').fill('Example');
    await form.getByRole('button', { name: 'Publish', exact: true }).click();
    await announced('Published My legal name, version 1.', form);
    const mine = card('My legal name');
    expect(await mine.getByRole('list', { name: 'Versions of My legal name' }).innerText()).to.match(/^Version 1, published/);

    await mine.getByRole('button', { name: 'Publish a new version' }).click();
    await mine.getByLabel('Family name').fill('Example-Smith');
    await mine.getByRole('button', { name: 'Publish', exact: true }).click();
    await announced('Published version 2 of My legal name.', mine);
    await mine.getByText('Version 2, published').waitFor();
    const versions = await mine.getByRole('list', { name: 'Versions of My legal name' }).innerText();
    expect(versions).to.match(/Version 1, published[\s\S]*Version 2, published/);
    const listed = (await gql<Listed>('{ user { documents { name data version } } }')).user.documents;
    expect(listed).to.deep.include({ name: 'My legal name', version: 2, data: { givenName: 'Ann', familyName: 'Example-Smith' } });
  });

  it("shows the service's refusal at the field it names, after the page's own check passed", async () => {
    await page.goto(`${web.base}/vault`);
    const account = card('Sample PersonBankAccount');
    await account.getByRole('button', { name: 'Publish a new version' }).click();
    await account.getByLabel('Bank name').fill('Muster Bank');
    // The page judged what was typed and sends it; on the way the IBAN goes bad, so only the service can refuse it.
    await page.route('**/graphql', async (route) => {
      const body = route.request().postDataJSON() as { query: string; variables: { input?: { data?: Record<string, unknown> } } };
      if (body.query.includes('update(') && body.variables.input?.data) body.variables.input.data.iban = 'DE00 NOT AN IBAN';
      await route.continue({ postData: JSON.stringify(body) });
    });
    try {
      const answered = page.waitForResponse((r) => r.url().endsWith('/graphql') && r.request().postData()!.includes('NOT AN IBAN'));
      await account.getByRole('button', { name: 'Publish', exact: true }).click();
      expect(await (await answered).json()).to.have.nested.property('errors[0].extensions.errors[0].instancePath', '/iban');
    } finally {
      await page.unroute('**/graphql');
    }
    await account.getByRole('alert').filter({ hasText: 'data invalid at /iban' }).waitFor();
    const iban = account.getByLabel(/^IBAN/);
    const error = account.locator(`[id="${await iban.getAttribute('id')}__error"]`);
    expect(await error.innerText(), 'the error is the field’s own, which its aria-describedby names').to.contain('must match pattern');
    expect(await iban.getAttribute('aria-describedby')).to.contain(`${await iban.getAttribute('id')}__error`);
    const [bankAccount] = (await gql<Listed>('{ user { documents { name version } } }')).user.documents.filter(
      (d) => d.name === 'Sample PersonBankAccount',
    );
    expect(bankAccount?.version, 'nothing was published').to.equal(2);
  });

  it('uploads a file with visible progress, a second version, and downloads each version byte for byte', async () => {
    const first = randomBytes(1536 * 1024);
    const second = Buffer.from('the second version\n');
    await page.goto(`${web.base}/vault`);
    // Slowed to a quarter of a megabyte a second, the upload takes long enough to be watched.
    const cdp = await web.browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 256 * 1024,
    });
    try {
      await page
        .getByLabel('File', { exact: true })
        .setInputFiles({ name: 'scan.bin', mimeType: 'application/octet-stream', buffer: first });
      await page.getByLabel('What it is (optional)').fill('Passport scan');
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.waitForFunction(() => {
        const bar = document.querySelector<HTMLProgressElement>('#upload-new-progress');
        return bar !== null && bar.value > 0 && bar.value < 1;
      });
      expect(await page.getByText(/\d+% sent/).isVisible()).to.equal(true);
    } finally {
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    }
    await announced('Uploaded scan.bin.', page.locator('#files').locator('..'));
    const scan = card('Passport scan');
    await scan.getByRole('button', { name: 'Upload a new version' }).click();
    await scan.getByLabel('The new version').setInputFiles({ name: 'scan-2.txt', mimeType: 'text/plain', buffer: second });
    await scan.getByRole('button', { name: 'Upload version' }).click();
    await announced('Uploaded version 2 of Passport scan.', scan);
    // The list is read again after the announcement: wait for its new version.
    await scan.getByText(/Version 2: scan-2\.txt/).waitFor();
    expect(await scan.getByRole('list', { name: 'Versions of Passport scan' }).innerText()).to.match(
      /Version 1: scan\.bin, 1\.5 MB[\s\S]*Version 2: scan-2\.txt, 19 bytes/,
    );

    for (const [version, bytes, name] of [
      [1, first, 'scan.bin'],
      [2, second, 'scan-2.txt'],
    ] as const) {
      const [saved] = await Promise.all([
        page.waitForEvent('download'),
        scan.getByRole('button', { name: `Download version ${version}` }).click(),
      ]);
      expect(saved.suggestedFilename()).to.equal(name);
      expect((await readFile(await saved.path())).equals(bytes), `version ${version}`).to.equal(true);
    }
  });

  it('creates a legal entity, adds a member with a role, changes the role and removes them', async () => {
    const colleague = `c${randomBytes(4).toString('hex')}@example.com`;
    await page.goto(`${web.base}/vault`);
    await page.getByLabel('Name of a new legal entity').fill('Muster AG');
    await page.getByRole('button', { name: 'Create legal entity' }).click();
    await announced('Created Muster AG; you manage it.', page.locator('body'));
    const entity = card('Muster AG');
    expect(await entity.getByRole('list', { name: 'Members of Muster AG' }).innerText()).to.contain(person);

    await entity.getByLabel('Email address of the new member').fill(colleague);
    await entity.getByLabel('Their role').selectOption('MEMBER');
    await entity.getByRole('button', { name: 'Add member' }).click();
    await announced(`Added ${colleague} to Muster AG as member.`, entity);
    const members = entity.getByRole('list', { name: 'Members of Muster AG' });
    await members.locator('li', { hasText: colleague }).waitFor();
    expect(await entity.getByLabel(`Role of ${colleague}`).inputValue()).to.equal('MEMBER');

    await entity.getByLabel(`Role of ${colleague}`).selectOption('MANAGER');
    await entity.getByRole('button', { name: `Change role of ${colleague}` }).click();
    await announced(`${colleague} is now manager of Muster AG.`, entity);
    const roles = async () =>
      (await gql<Entities>('{ user { entities { entityId name members { email role } } } }')).user.entities[0]?.members;
    expect(await roles()).to.deep.include({ email: colleague, role: 'MANAGER' });

    await entity.getByRole('button', { name: `Remove ${colleague}` }).click();
    await announced(`Removed ${colleague} from Muster AG.`, entity);
    expect((await roles())?.map((m) => m.email)).to.deep.equal([person]);
  });

  it('uploads a new file into the vault of a legal entity the person manages, as a new document can be', async () => {
    await page.goto(`${web.base}/vault`);
    const upload = page.getByRole('form', { name: 'Upload a file' });
    await upload.getByLabel('Whose it is').selectOption({ label: 'Muster AG' });
    await upload
      .getByLabel('File', { exact: true })
      .setInputFiles({ name: 'register.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4') });
    await upload.getByLabel('What it is (optional)').fill('Trade register');
    await upload.getByRole('button', { name: 'Upload', exact: true }).click();
    await announced('Uploaded register.pdf.', upload);
    await card('Trade register').getByText('Belongs to Muster AG').waitFor();
    const [muster] = (await gql<Entities>('{ user { entities { entityId name members { email role } } } }')).user.entities;
    const files = (await gql<Files>('{ user { files { label owner } } }')).user.files;
    expect(files).to.deep.include({ label: 'Trade register', owner: muster?.entityId });
  });

  it('axe-core finds no serious or critical violation on /vault with documents, files, entities and a form shown', async () => {
    await page.goto(`${web.base}/vault`);
    await card('My legal name').getByRole('button', { name: 'Publish a new version' }).click();
    await card('My legal name').getByLabel('Given name').waitFor();
    await page.getByRole('button', { name: 'New document' }).click();
    await page.getByLabel('Kind of document').selectOption({ label: 'UBO structure' });
    await page.locator('#new-document').getByRole('button', { name: 'Publish', exact: true }).waitFor();
    await card('Passport scan').waitFor();
    expect(await seriousViolations(page)).to.deep.equal([]);
  });

  it('works at 375 px wide without sideways scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      await page.goto(`${web.base}/vault`);
      await card('Muster AG').waitFor();
      await card('Sample UBOStructure').getByRole('button', { name: 'Publish a new version' }).click();
      await card('Sample UBOStructure').getByRole('button', { name: 'Publish', exact: true }).waitFor();
      expect(await overflowsSideways(page)).to.equal(false);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('reaches the main actions by keyboard: New document, Publish, Upload, Download, Create legal entity', async () => {
    await page.goto(`${web.base}/vault`);
    await card('Muster AG').waitFor();
    for (const name of ['New document', 'Publish a new version', 'Upload', 'Download version 1', 'Create legal entity'])
      await reachByKeyboard(page, 'button', name, 250);
    expect(web.cspErrors).to.deep.equal([]);
  });
});
