import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';
import { orgClient, type OrgClient } from '../org/org-client.js';

const slot = { label: 'Name', group: 'Identity', multiple: false, kind: 'schema', target: 'PersonFullName', verbs: ['keep'], adoption: 'manual' };

describe(`the invitation mail (contract 4; ${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
  });
  after(() => service.close());

  it('goes to the normalized recipient; when mail is down the request still stands and the failure is logged', async () => {
    const owner = await api.user();
    const org = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    const { manifestId } = (await api.post('/org/v1/manifests', org, { name: 'KYC', retention: 'P30D', slots: [slot] })).body.manifest as { manifestId: string };

    const sent = await api.post('/org/v1/requests', org, { manifestId, recipientEmail: '  Invited@Example.com ' });
    expect(sent.status).to.equal(201);
    expect(mailer.sent.at(-1)!.to).to.equal('invited@example.com');

    mailer.failing = true;
    try {
      const down = await api.post('/org/v1/requests', org, { manifestId, recipientEmail: 'second@example.com' });
      expect(down.status).to.equal(201);
      const listed = (await api.get('/org/v1/requests?email=second@example.com', org)).body.requests as Array<{ requestId: string }>;
      expect(listed.map((r) => r.requestId)).to.deep.equal([(down.body.request as { requestId: string }).requestId]);
      await service.waitForLog((l) => l.level === 40 && /invitation/i.test(String(l.msg)));
      expect(service.logText()).to.not.contain('second@example.com');
    } finally {
      mailer.failing = false;
    }
  });
});
