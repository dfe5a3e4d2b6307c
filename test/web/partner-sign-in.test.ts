import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { User } from '../api/support/driver.js';
import { documentedAnswers, PARTNER_SIGN_IN_OPERATIONS } from '../api/support/documented.js';
import { partnerIdp, SERVICE_CLIENT_ID } from '../partner/support/partner-idp.js';
import { acmeOnboarding, type sdkApp } from '../partner/support/sdk-app.js';
import { mainBackend } from '../support/databases.js';
import { codeFromMailbox, seriousViolations, startWebService, type WebService } from './support/web-service.js';

describe(`§13 "Continue with <organization>": a partner's own identity provider signs its people in (R-PART-07, R-PART-08; ${mainBackend})`, function () {
  this.timeout(120_000);
  let web: WebService;
  let page: Page;
  let ann: User;
  let app: Awaited<ReturnType<typeof sdkApp>>;
  let idp: Awaited<ReturnType<typeof partnerIdp>>;
  const documented = documentedAnswers();
  const answers: Array<Promise<string | null>> = [];

  before(async function () {
    web = await startWebService(this, { env: { OAUTH_ALLOW_LOOPBACK_HTTP: '1' } });
    // The partner registers the service at its provider with the keys the service publishes.
    const jwks = (await (await fetch(`${web.base}/oauth/partner-sign-in/jwks`)).json()) as { keys: object[] };
    idp = await partnerIdp({ base: web.base, jwks }, (login) => (login === 'ann.lee' ? ann.email : `${login}@acme.example`));
    ({ app, ann } = await acmeOnboarding(web, { identityProvider: { issuer: idp.issuer, clientId: SERVICE_CLIENT_ID } }));
    page = await web.browser.context.newPage();
    // Every answer of the sign-in's own operations, held to what the OpenAPI document says of it on its way to the page.
    await page.route(`${web.base}/oauth/**`, async (route) => {
      const method = route.request().method();
      const operation = operationOf(method, new URL(route.request().url()));
      if (!operation) return route.fallback();
      const response = await route.fetch();
      if (response.status() === 200) answers.push(Promise.resolve(documented.invalid(method, operation, 200, await response.json())));
      return route.fulfill({ response });
    });
    answers.push(
      fetch(`${web.base}/oauth/partner-sign-in/jwks`)
        .then((r) => r.json())
        .then((body: unknown) => documented.invalid('GET', '/oauth/partner-sign-in/jwks', 200, body)),
    );
  });
  after(async () => {
    await app?.close();
    await idp?.close();
    await web?.close();
  });

  it('the first time: the provider’s own sign-in, then the code mailed to the address links the two, once; the app gets its data', async () => {
    await page.goto(`${app.origin}/start`);
    await page.getByRole('heading', { name: 'Sign in to answer Acme onboarding' }).waitFor();
    expect(await seriousViolations(page)).to.deep.equal([]);
    await page.getByRole('button', { name: 'Continue with Acme Bank' }).click();

    // Signed out at the provider, its silent sign-in comes back login_required: the service asks again, with the provider's page.
    await page.waitForURL(`${idp.issuer}/**`);
    await page.getByPlaceholder('Enter any login').fill('ann.lee');
    await page.getByPlaceholder('and password').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('heading', { name: 'Link your Acme Bank sign-in' }).waitFor();
    expect(await page.getByLabel('Email address').inputValue(), 'the provider’s email claim, to confirm').to.equal(ann.email);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code from the mail').fill('000000');
    await page.getByRole('button', { name: 'Link and sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Code from the mail').fill(await codeFromMailbox(web, ann.email));
    await page.getByRole('button', { name: 'Link and sign in' }).click();

    await page.getByText('Acme onboarding sent you here to ask for your data.').waitFor();
    await page.getByLabel('My passport name').check();
    await page.getByRole('button', { name: 'Accept' }).click();
    await page.getByRole('button', { name: 'Continue to Acme onboarding' }).click();
    await page.getByText(/^Connected to request [0-9a-f-]{36}\. Read: My passport name v1$/).waitFor();
    expect(web.cspErrors).to.deep.equal([]);

    // The provider's tokens were used for the sign-in and kept nowhere.
    expect(idp.issued).to.have.length.greaterThan(1);
    expect(await rowsHolding(web, idp.issued)).to.deep.equal([]);
  });

  it('next time, signed in at the provider, one click on “Continue with” signs the person in, with no page of the provider’s', async () => {
    // Signed out of the service (its cookies only): the provider, at localhost, still knows the person.
    await page.context().clearCookies({ domain: '127.0.0.1' });
    const asked = idp.logins.length;
    await page.goto(`${app.origin}/start`);
    await page.getByRole('button', { name: 'Continue with Acme Bank' }).click();
    // Straight back to the app's request: the connection made the first time, so the app may go on at once.
    await page.getByRole('button', { name: 'Continue to Acme onboarding' }).click();
    await page.getByText(/^Connected to request [0-9a-f-]{36}\. Read: My passport name v1$/).waitFor();
    expect(idp.logins.slice(asked), 'no login or consent page at the provider').to.deep.equal([]);
  });

  it('every answer of the sign-in’s operations was what the OpenAPI document says, and the flows reached them all', async () => {
    expect((await Promise.all(answers)).filter((invalid) => invalid !== null)).to.deep.equal([]);
    expect([...documented.checked].sort()).to.deep.equal([...PARTNER_SIGN_IN_OPERATIONS].sort());
  });
});

/** The sign-in's operation a call of the pages is for, by its path. */
function operationOf(method: string, url: URL): string | null {
  if (method === 'POST' && /^\/oauth\/interaction\/[^/]+\/partner-sign-in$/.test(url.pathname))
    return '/oauth/interaction/{uid}/partner-sign-in';
  if (method === 'POST' && ['/oauth/partner-sign-in/complete', '/oauth/partner-sign-in/link'].includes(url.pathname)) return url.pathname;
  return null;
}

/** The tables (schema.table) whose rows hold any of `values` as text. */
async function rowsHolding(web: WebService, values: readonly string[]): Promise<string[]> {
  const tables = (
    await web.service.db.query<{ name: string }>(
      `SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
       WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    )
  ).rows.map((r) => r.name);
  const holding: string[] = [];
  for (const table of tables)
    for (const value of values) {
      const hit = await web.service.db.query(`SELECT 1 FROM ${table} t WHERE strpos(t::text, $1) > 0 LIMIT 1`, [value]);
      if (hit.rows.length > 0) holding.push(table);
    }
  return holding;
}
