import { expect } from 'chai';
import { loadConfig } from '../../../src/config.js';
import { mainBackend } from '../../support/databases.js';
import { TestClock } from '../../support/recording-mailer.js';
import { startOrgService, type OrgClient } from '../org/org-client.js';
import { driver, MANUAL_NAME_SLOT, type Gql } from '../support/driver.js';
import type { TestService } from '../support/service.js';

const DAY = 24 * 60 * 60_000;
const OPEN = 'mutation($c: ID!, $m: ID!) { user { request { open(clientId: $c, manifestId: $m) { requestId state } } } }';

describe(`§10.9 user.request.open is limited per person per day (OPENS_PER_USER_PER_DAY; ${mainBackend})`, function () {
  this.timeout(60_000);
  const clock = new TestClock(Date.now());
  let service: TestService;
  let api: OrgClient;
  let app: { clientId: string; manifestId: string };
  const { gql, ok, appended } = driver({ api: () => api, log: () => service.db });

  before(async () => {
    ({ service, api } = await startOrgService({ env: { OPENS_PER_USER_PER_DAY: '3' }, now: clock.now }));
    const owner = await api.user();
    const member = await api.signIn(owner.token, await api.organization(owner.token));
    const manifest = await api.post('/org/v1/manifests', member, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [MANUAL_NAME_SLOT],
    });
    const registered = await api.post('/org/v1/apps', member, { name: 'Onboarding' });
    app = { clientId: String(registered.body.clientId), manifestId: String((manifest.body.manifest as { manifestId: string }).manifestId) };
  });
  after(() => service.close());

  const open = (person: { email: string; token: string }): Promise<Gql> => gql(person, OPEN, { c: app.clientId, m: app.manifestId });

  it('defaults to 20 opens per person per day', () => {
    expect(loadConfig({}).opensPerUserPerDay).to.equal(20);
  });

  it('given a person who opened 3 requests today, the 4th answers RATE_LIMITED with retryAfter and appends nothing', async () => {
    const person = await api.user();
    for (let i = 0; i < 3; i++) expect(ok(await open(person)).user.request.open.state).to.equal('pending');
    let refused: Gql = {};
    expect(
      await appended(async () => {
        refused = await open(person);
      }),
    ).to.deep.equal([]);
    const extensions: Record<string, unknown> = refused.errors?.[0]?.extensions ?? {};
    expect(extensions.code).to.equal('RATE_LIMITED');
    expect(extensions.retryAfter).to.be.within(1, DAY / 1000);
  });

  it("given one person's opens used up, another person still opens", async () => {
    const first = await api.user();
    for (let i = 0; i < 3; i++) ok(await open(first));
    expect(ok(await open(await api.user())).user.request.open.state).to.equal('pending');
  });

  it('given a day passed since the opens, the person opens again', async () => {
    const person = await api.user();
    for (let i = 0; i < 3; i++) ok(await open(person));
    clock.advance(DAY);
    expect(ok(await open(person)).user.request.open.state).to.equal('pending');
  });
});
