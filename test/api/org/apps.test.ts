import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';
import { orgClient, problem, type OrgClient } from './org-client.js';

describe(`GET /org/v1/apps: the apps the settings page lists (R-WEB-44; ${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let owner: { email: string; token: string };
  let member: string;

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    owner = await api.user();
    member = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
  });
  after(() => service.close());

  it('lists the apps registered, the earliest first, each {clientId, name, registeredAt}; only its own organization’s', async () => {
    expect((await api.get('/org/v1/apps', member)).body).to.deep.equal({ apps: [] });
    const first = (await api.post('/org/v1/apps', member, { name: 'Onboarding portal' })).body;
    const second = (await api.post('/org/v1/apps', member, { name: 'Mobile app' })).body;
    const listed = await api.get('/org/v1/apps', member);
    expect(listed.status).to.equal(200);
    const apps = listed.body.apps as Array<{ clientId: string; name: string; registeredAt: string }>;
    expect(apps.map(({ clientId, name }) => ({ clientId, name }))).to.deep.equal([
      { clientId: first.clientId, name: 'Onboarding portal' },
      { clientId: second.clientId, name: 'Mobile app' },
    ]);
    for (const app of apps) expect(Number.isNaN(Date.parse(app.registeredAt)), app.registeredAt).to.equal(false);

    const rival = await api.user();
    const rivalMember = await api.signIn(rival.token, await api.organization(rival.token, 'Rival'));
    expect((await api.get('/org/v1/apps', rivalMember)).body).to.deep.equal({ apps: [] });
  });

  it('needs member_manage (403), a member token (401), and takes no query parameters (400)', async () => {
    const reader = await api.user();
    expect((await api.put(`/org/v1/members/${reader.email}`, member, { permissions: ['request_read'] })).status).to.equal(200);
    const orgs = (await api.get('/org/v1/organizations', reader.token)).body.organizations as Array<{ organizationId: string }>;
    const readerToken = await api.signIn(reader.token, orgs[0]!.organizationId);
    expect(problem(await api.get('/org/v1/apps', readerToken))).to.deep.equal({ status: 403, code: 'forbidden' });
    expect(problem(await api.get('/org/v1/apps', owner.token))).to.deep.equal({ status: 401, code: 'unauthenticated' });
    expect(problem(await api.get('/org/v1/apps'))).to.deep.equal({ status: 401, code: 'unauthenticated' });
    expect(problem(await api.get('/org/v1/apps?page=2', member))).to.deep.equal({ status: 400, code: 'invalid_request' });
  });
});
