import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { mainBackend } from '../support/databases.js';
import { overflowsSideways, seriousViolations, signInThroughThePages, startWebService, type WebService } from './support/web-service.js';

describe(`§11 a generated form's arrays in a browser (R-WEB-11; ${mainBackend})`, function () {
  this.timeout(60_000);
  let web: WebService;
  let page: Page;
  const person = `f${randomBytes(5).toString('hex')}@example.com`;

  before(async function () {
    web = await startWebService(this);
    page = await web.browser.context.newPage();
    await signInThroughThePages(web, page, person, '/vault');
  });
  after(() => web?.close());

  it('adds two items with the visible Add button, removes one, and Publish stores the list; axe finds nothing serious', async () => {
    await page.getByRole('button', { name: 'New document' }).click();
    await page.getByLabel('Kind of document').selectOption({ label: 'Person nationality' });
    await page.getByLabel('Name', { exact: true }).fill('My nationalities');
    const form = page.locator('#new-document');
    const add = form.getByRole('button', { name: 'Add an item to Nationalities' });
    expect(await add.innerText(), 'the button says what it does').to.equal('Add an item');
    const box = await add.boundingBox();
    expect(box!.width * box!.height, 'the button is seen').to.be.greaterThan(0);

    const items = form.locator('.rjsf-array-item');
    const first = await items.count();
    await add.click();
    await add.click();
    expect(await items.count()).to.equal(first + 2);
    const countries = ['DE', 'FR', 'IT'].slice(0, first + 2);
    for (const [i, country] of countries.entries()) await items.getByRole('textbox').nth(i).fill(country);
    expect(await seriousViolations(page), 'the array form open').to.deep.equal([]);
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      expect(await overflowsSideways(page), 'the array form at 375 px').to.equal(false);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    await form.getByRole('button', { name: 'Remove item 2 of Nationalities' }).click();
    expect(await items.count()).to.equal(first + 1);
    await form.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published My nationalities, version 1.').waitFor();

    const signedIn = await web.api.user({ email: person });
    const listed = await web.api.post('/graphql', signedIn.token, { query: '{ user { documents { name data } } }' });
    const documents = (listed.body as { data: { user: { documents: Array<{ name: string; data: unknown }> } } }).data.user.documents;
    expect(documents).to.deep.include({ name: 'My nationalities', data: { nationalities: countries.filter((_, i) => i !== 1) } });
  });
});
