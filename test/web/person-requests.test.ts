import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { driver, MANUAL_NAME_SLOT, PASSPORT_SLOT, type User } from '../api/support/driver.js';
import { mainBackend } from '../support/databases.js';
import {
  overflowsSideways,
  reachByKeyboard,
  seriousViolations,
  signInThroughThePages,
  startWebService,
  type WebService,
} from './support/web-service.js';

const NAME_SLOT = { ...MANUAL_NAME_SLOT, required: true };
const BIRTH_SLOT = {
  label: 'Birth',
  group: 'KYC',
  multiple: false,
  kind: 'schema',
  target: 'PersonBirth',
  verbs: ['keep'],
  adoption: 'auto',
} as const;

type Item = { slotId: string; status: string; records: Array<{ resourceId: string }> };

describe(`§11 the person’s request pages in a browser (R-WEB-30 to R-WEB-36; ${mainBackend})`, function () {
  this.timeout(90_000);
  let web: WebService;
  let page: Page;
  let member: string;
  let ann: User;
  let founderEmail: string;
  let nameSlot: string;
  let birthSlot: string;
  /** Ann's invitation from Acme Bank, answered on the pages; another she rejects; a third left pending for the keyboard. */
  let requestId: string;
  let toReject: string;
  let toLeave: string;
  /** Her name, in her vault before she opens the request. */
  let nameDoc: string;
  const d = driver({ api: () => web.api, member: () => member });

  before(async function () {
    // The copy workers keep the automatic slot's record, and open a proposal for an update on the manual one.
    web = await startWebService(this, { workers: true });
    const founder = await web.api.user();
    founderEmail = founder.email;
    member = await web.api.signIn(founder.token, await web.api.organization(founder.token, 'Acme Bank'));
    const manifest = await d.manifest([NAME_SLOT, BIRTH_SLOT], 'P90D', { name: 'Open an account' });
    [nameSlot, birthSlot] = manifest.slots.map((s) => s.slotId) as [string, string];
    ann = await web.api.user();
    nameDoc = await d.createDoc(ann, {
      name: 'My passport name',
      schemaRef: `${web.base}/schemas/core/PersonFullName.json`,
      data: { givenName: 'Ann', familyName: 'Lee' },
    });
    requestId = await d.send(manifest.manifestId, ann.email);
    toReject = await d.send(manifest.manifestId, ann.email);
    toLeave = await d.send(manifest.manifestId, ann.email);
    page = await web.browser.context.newPage();
  });
  after(() => web?.close());

  const open = async (id: string) => {
    await page.goto(`${web.base}/requests/${id}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
  };
  const status = () => page.getByRole('status');
  const alert = () => page.getByRole('alert');
  /** A member of Acme Bank as the person reads them: by pseudonym, never by address. */
  const ACME_MEMBER = /by a member of Acme Bank \(ref [A-Za-z0-9_-]{16,}\)/;
  const orgView = async (id: string) => (await d.detail(id)) as { request: { state: string }; items: Item[] };
  const everything = () =>
    page.getByRole('region', { name: 'Who holds what' }).getByRole('list', { name: 'Everything that happened, newest first' });
  const slotCard = (label: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: label, level: 3 }) });

  it('a person who opens /requests/{id} signed out signs in and lands back on the request', async () => {
    await signInThroughThePages(web, page, ann.email, `/requests/${requestId}`);
    await page.getByRole('heading', { level: 1, name: 'Acme Bank: Open an account' }).waitFor();
  });

  it('the consent screen shows the organization, why, for how long in words, and each slot: required or optional, and what happens to updates', async () => {
    const consent = page.getByRole('region', { name: 'What Acme Bank asks for' });
    const text = await consent.innerText();
    expect(text).to.contain('Acme Bank').and.contain('To check who you are').and.contain('90 days');
    const name = await slotCard('Name').innerText();
    expect(name).to.contain('Required').and.contain('Person full name').and.contain('ask before taking an update');
    const birth = await slotCard('Birth').innerText();
    expect(birth).to.contain('Optional').and.contain('Person birth').and.contain('get your updates automatically');
    expect(name, 'her own document fits the name slot').to.contain('My passport name');
    expect(birth, 'and not the birth slot').to.not.contain('My passport name');
  });

  it('Accept without a required slot shows the service’s refusal as an alert, and the request stays pending', async () => {
    await page.getByRole('button', { name: 'Accept' }).click();
    await alert().filter({ hasText: 'required slot' }).waitFor();
    expect(await alert().innerText()).to.contain('"Name"');
    expect(await status().innerText(), 'a refusal is no status').to.equal('');
    expect((await orgView(requestId)).request.state).to.equal('pending');
  });

  it('shares a document of the vault and one made on the spot from the slot’s schema; Accept makes the request active with both', async () => {
    await page.getByLabel('My passport name').check();
    await page.getByRole('button', { name: 'Add a new person birth for Birth' }).click();
    await page.getByLabel('Birth date').fill('1990-04-01');
    await page.getByRole('button', { name: 'Save and choose for Birth' }).click();
    await status().filter({ hasText: 'chosen for Birth' }).waitFor();
    expect(
      await slotCard('Birth')
        .getByRole('radio', { name: /Person birth/ })
        .isChecked(),
    ).to.equal(true);
    await page.getByRole('button', { name: 'Accept' }).click();
    await status().filter({ hasText: 'You accepted' }).waitFor();
    expect(await page.getByText('Shared: you accepted').count()).to.be.greaterThan(0);

    const detail = await orgView(requestId);
    expect(detail.request.state).to.equal('active');
    const records = Object.fromEntries(detail.items.map((i) => [i.slotId, i.records.map((r) => r.resourceId)]));
    expect(records[nameSlot]).to.deep.equal([nameDoc]);
    expect(records[birthSlot]).to.have.length(1);
    expect(await slotCard('Name').innerText()).to.contain('You share: My passport name');
  });

  it('after the organization keeps a copy, Who holds what shows it newest first with its version, by a member (pseudonym) or automatically, never an address', async () => {
    await web.eventually(async () => (await d.copies(requestId)).length === 1, 'the automatic keep of Birth');
    expect((await d.keep(requestId, nameSlot)).status).to.equal(200);
    await d.updateDoc(ann, nameDoc, { givenName: 'Ann', familyName: 'Lee-Smith' });
    await web.eventually(async () => (await d.proposals(requestId)).length === 1, 'the proposal of version 2');
    await open(requestId);
    const section = page.getByRole('region', { name: 'Who holds what' });
    const keeps = section.getByRole('list', { name: 'What Acme Bank keeps' });
    const copy = keeps.getByRole('listitem').filter({ hasText: /^A copy of “My passport name”/ });
    await copy.waitFor();
    expect(await copy.innerText())
      .to.contain('your version 1')
      .and.match(ACME_MEMBER);
    const automatic = await keeps
      .getByRole('listitem')
      .filter({ hasText: /^A copy of “Person birth”/ })
      .innerText();
    expect(automatic).to.contain('your version 1').and.contain('automatically');
    const waiting = await section.getByRole('list', { name: 'Waiting for Acme Bank' }).innerText();
    expect(waiting).to.contain('You published version 2 of “My passport name”').and.not.contain('automatically');
    const timeline = await everything().getByRole('listitem').allInnerTexts();
    expect(timeline[0], 'the newest first').to.contain('You published version 2');
    expect(timeline[0], 'what the person did has no actor').to.not.match(/automatically|by a member/);
    expect(timeline[1]).to.contain('Acme Bank kept a copy of “My passport name”').and.contain('your version 1').and.match(ACME_MEMBER);
    expect(timeline.at(-1)).to.contain('Acme Bank sent you this request');
    expect(await section.innerText()).to.not.contain(founderEmail);
  });

  it('shows a correction and a read with their times; a deleted copy leaves what Acme Bank keeps and shows when it was deleted', async () => {
    const corrected = await d.correct(requestId, birthSlot, {
      expectedSourceVersion: 1,
      expectedOrgVersion: 1,
      data: { birthDate: '1990-04-02' },
    });
    expect(corrected.status, JSON.stringify(corrected.body)).to.equal(200);
    const [proposal] = await d.proposals(requestId);
    await d.expectOk(web.api.get(`/org/v1/requests/${requestId}/proposals/${proposal!.proposalId}/candidate`, member));
    await open(requestId);
    const section = page.getByRole('region', { name: 'Who holds what' });
    const birth = section
      .getByRole('list', { name: 'What Acme Bank keeps' })
      .getByRole('listitem')
      .filter({ hasText: /^A copy of “Person birth”/ });
    expect(await birth.innerText())
      .to.match(/Acme Bank corrected it \S.* by a member of Acme Bank \(ref [A-Za-z0-9_-]{16,}\), now their version 2/)
      .and.contain('not yours');
    const reads = await section.getByRole('list', { name: 'Updates Acme Bank read before deciding' }).getByRole('listitem').allInnerTexts();
    expect(reads).to.have.length(1);
    expect(reads[0]).to.contain('Acme Bank read version 2 of “My passport name”').and.match(ACME_MEMBER);
    expect((await everything().getByRole('listitem').allInnerTexts())[0]).to.contain('Acme Bank read version 2');

    const birthCopy = (await d.copies(requestId)).find((c) => c.adoption.slotId === birthSlot)!;
    await d.expectOk(web.api.del(`/org/v1/requests/${requestId}/copies/${birthCopy.adoption.adoptionId}`, member));
    await open(requestId);
    const deleted = section.getByRole('list', { name: 'Copies Acme Bank deleted' });
    expect(await deleted.innerText())
      .to.match(/^Your version 1 of “Person birth” \(shared as Birth\): the copy was deleted \S/)
      .and.match(ACME_MEMBER);
    const kept = await section.getByRole('list', { name: 'What Acme Bank keeps' }).innerText();
    expect(kept).to.contain('My passport name').and.not.contain('Person birth');
    const timeline = await everything().getByRole('listitem').allInnerTexts();
    expect(timeline[0]).to.contain('Acme Bank deleted its copy of “Person birth”');
    expect(
      timeline.some((t) => t.includes('Acme Bank corrected its copy of “Person birth” (shared as Birth), now their version 2.')),
    ).to.equal(true);
  });

  it('Withdraw, Share again, Suspend, Resume and Revoke each show on the page and in the organization’s API', async () => {
    const nameRecords = async () => (await orgView(requestId)).items.find((i) => i.slotId === nameSlot)!;

    await page.getByRole('button', { name: 'Withdraw Name' }).click();
    await status().filter({ hasText: 'You withdrew Name' }).waitFor();
    expect(await slotCard('Name').innerText()).to.contain('You share nothing here');
    expect((await nameRecords()).status).to.equal('pending');

    await slotCard('Name').getByLabel('My passport name').check();
    await page.getByRole('button', { name: 'Share Name' }).click();
    await status().filter({ hasText: 'You now share Name' }).waitFor();
    expect((await nameRecords()).records.map((r) => r.resourceId)).to.deep.equal([nameDoc]);

    await page.getByRole('button', { name: 'Suspend' }).click();
    await status().filter({ hasText: 'Paused' }).waitFor();
    await page.getByText('Paused by you').first().waitFor();
    expect((await orgView(requestId)).request.state).to.equal('suspended');

    await page.getByRole('button', { name: 'Resume' }).click();
    await status().filter({ hasText: 'Resumed' }).waitFor();
    expect((await orgView(requestId)).request.state).to.equal('active');

    await page.getByRole('button', { name: 'Revoke' }).click();
    expect((await orgView(requestId)).request.state, 'revoke asks first').to.equal('active');
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await status().filter({ hasText: 'has ended' }).waitFor();
    await page.getByText('Ended by you').first().waitFor();
    expect((await orgView(requestId)).request.state).to.equal('revoked');
    expect(await page.getByRole('button', { name: /Share|Withdraw|Suspend|Revoke/ }).count()).to.equal(0);
  });

  it('Reject of another invitation ends it, on the page and in the organization’s API', async () => {
    await open(toReject);
    await page.getByRole('button', { name: 'Reject' }).click();
    await status().filter({ hasText: 'You said no' }).waitFor();
    expect((await orgView(toReject)).request.state).to.equal('rejected_by_recipient');
    expect(await page.getByRole('button', { name: 'Accept' }).count()).to.equal(0);
  });

  it('a file slot offers the person’s files and takes one uploaded there, chosen at once; Accept shares it', async () => {
    const id = await d.send((await d.manifest([PASSPORT_SLOT], 'P30D', { name: 'Passport check' })).manifestId, ann.email);
    await open(id);
    await page.getByRole('button', { name: 'Add a new file for Passport' }).click();
    const scan = { name: 'passport.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 a scan') };
    await page.getByLabel('Upload a file for Passport').setInputFiles(scan);
    await status().filter({ hasText: 'chosen for Passport' }).waitFor();
    expect(
      await slotCard('Passport')
        .getByRole('radio', { name: /passport\.pdf/ })
        .isChecked(),
    ).to.equal(true);
    await page.getByRole('button', { name: 'Accept' }).click();
    await status().filter({ hasText: 'You accepted' }).waitFor();
    expect((await orgView(id)).items[0]!.records).to.have.length(1);
    expect(await slotCard('Passport').innerText()).to.contain('You share: passport.pdf');
  });

  it('/requests lists invitations and connections in plain words, each linking to its page, and shows one organization’s together', async () => {
    const other = await web.api.user();
    const otherMember = await web.api.signIn(other.token, await web.api.organization(other.token, 'Beta Insurance'));
    const betaManifest = await d.manifest([MANUAL_NAME_SLOT], 'P30D', { as: otherMember, name: 'Get a quote' });
    await d.send(betaManifest.manifestId, ann.email, { as: otherMember });

    await page.goto(`${web.base}/requests`);
    const invitations = page.getByRole('region', { name: 'Invitations' });
    await invitations.getByRole('link', { name: 'Get a quote' }).waitFor();
    expect(await invitations.getByRole('listitem').filter({ hasText: 'Acme Bank' }).innerText()).to.contain('Waiting for your answer');
    const connections = await page.getByRole('region', { name: 'Your connections' }).innerText();
    expect(connections).to.contain('Ended by you').and.contain('You said no');
    const holds = await page.getByRole('region', { name: 'Who holds what' }).innerText();
    expect(holds).to.contain('Acme Bank').and.not.contain('Beta Insurance');
    expect(holds).to.contain('A copy of “My passport name” (shared as Name), your version 1');

    await page.getByLabel('Show requests from').selectOption({ label: 'Beta Insurance' });
    expect(page.url()).to.match(/\?organization=/);
    expect(await page.getByRole('link', { name: 'Open an account' }).count()).to.equal(0);
    await page.getByLabel('Show requests from').selectOption({ label: 'Acme Bank' });
    expect(await page.getByRole('link', { name: 'Open an account' }).count(), 'all three of Acme’s requests').to.equal(3);
    await page.getByRole('link', { name: 'Open an account' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Acme Bank: Open an account' }).waitFor();
    expect(page.url()).to.match(/\/requests\/[0-9a-f-]{36}$/);
  });

  it('an expired request reads as what it was: an invitation left unanswered, or a connection whose time ran out', async () => {
    // The service's clock does not move here: its answer is changed on the way, as it reads once each one's time is up.
    await page.route('**/graphql', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { data?: { user?: { requests?: Array<{ requestId: string; state: string }> } } };
      for (const r of body.data?.user?.requests ?? []) if (r.requestId === requestId || r.requestId === toLeave) r.state = 'expired';
      await route.fulfill({ response, json: body });
    });
    try {
      await page.goto(`${web.base}/requests`);
      const connections = page.getByRole('region', { name: 'Your connections' });
      const entry = (id: string) => connections.getByRole('listitem').filter({ has: page.locator(`a[href="/requests/${id}"]`) });
      await entry(toLeave).waitFor();
      expect(await entry(requestId).innerText())
        .to.contain('Ended: the time they keep it ran out')
        .and.contain('You shared:');
      expect(await entry(toLeave).innerText())
        .to.contain('Expired without an answer')
        .and.not.contain('You shared');
      const acme = page.getByRole('region', { name: 'Who holds what' }).getByRole('region', { name: 'Acme Bank' });
      expect(await acme.innerText()).to.contain('1 ended as their time ran out');
      await open(requestId);
      await page.getByText('Ended: the time they keep it ran out').waitFor();
      await open(toLeave);
      await page.getByText('Expired without an answer').waitFor();
    } finally {
      await page.unroute('**/graphql');
    }
  });

  it('axe finds no serious violation on /requests and /requests/{id}; neither scrolls sideways at 375 px; Accept, Share and Revoke are reached by keyboard', async () => {
    const manifest = await d.manifest([NAME_SLOT, BIRTH_SLOT], 'P30D');
    const active = await d.connected(manifest.manifestId, ann, { [manifest.slots[0]!.slotId]: [nameDoc] });
    await page.setViewportSize({ width: 375, height: 800 });
    for (const path of ['/requests', `/requests/${toLeave}`, `/requests/${active}`, `/requests/${requestId}`]) {
      await page.goto(`${web.base}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.getByRole('heading', { level: 2 }).first().waitFor();
      expect(await seriousViolations(page), path).to.deep.equal([]);
      expect(await overflowsSideways(page), path).to.equal(false);
    }
    await open(toLeave);
    await reachByKeyboard(page, 'button', 'Accept');
    await open(active);
    await reachByKeyboard(page, 'button', 'Share Birth');
    await reachByKeyboard(page, 'button', 'Revoke');
    await page.keyboard.press('Enter');
    await reachByKeyboard(page, 'button', 'Yes, revoke');
  });

  it('/requests loads for a person with more connections than one query may ask the histories of (R-GQL-07: 200 fields)', async () => {
    const manifest = await d.manifest([MANUAL_NAME_SLOT], 'P30D', { name: 'One of many' });
    for (let i = 0; i < 40; i++) await d.connected(manifest.manifestId, ann, {});
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/graphql')) asked.push(r.postData() ?? '');
    });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${web.base}/requests`);
    const connections = page.getByRole('region', { name: 'Your connections' });
    await connections.getByRole('link', { name: 'One of many' }).first().waitFor();
    expect(await connections.getByRole('link', { name: 'One of many' }).count()).to.equal(40);
    expect(await page.getByRole('alert').count(), 'nothing refused').to.equal(0);
    const acme = page.getByRole('region', { name: 'Who holds what' }).getByRole('region', { name: 'Acme Bank' });
    expect(await acme.innerText()).to.match(/\b4\d active/);
    expect(asked.filter((q) => q.includes('requestHistory')).length, 'the histories in more than one query').to.be.greaterThan(1);
  });
});
