import { expect } from 'chai';
import { mainBackend } from '../support/databases.js';
import { RecordingMailer } from '../support/recording-mailer.js';
import { startTestService, type TestService } from './support/service.js';
import { orgClient, type OrgClient } from './org/org-client.js';

const nameSlot = {
  label: 'Name',
  group: 'Identity',
  multiple: false,
  kind: 'schema',
  target: 'PersonFullName',
  verbs: ['keep'],
  adoption: 'manual',
};
const REQUESTS = '{ user { requests { requestId } } }';

/** Contract details no other suite covers on their own (docs/rules.md R-REQ-27). */
describe(`contract details: the login address (contract 1; ${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
  });
  after(() => service.close());

  it('a request reaches a person only at the login address, never at a verified secondary one', async () => {
    const ann = await api.user();
    const secondary = `second-${ann.email}`;
    expect((await api.post('/auth/verify-email/send', ann.token, { email: secondary })).status).to.equal(200);
    expect(
      (await api.post('/auth/verify-email/confirm', ann.token, { email: secondary, code: mailer.lastCodeFor(secondary) })).status,
    ).to.equal(200);
    const me = await api.post('/graphql', ann.token, { query: '{ user { me { verifiedEmails } } }' });
    expect((me.body.data as { user: { me: { verifiedEmails: string[] } } }).user.me.verifiedEmails).to.deep.equal([secondary]);

    const owner = await api.user();
    const org = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    const manifestId = (
      (await api.post('/org/v1/manifests', org, { name: 'KYC', purpose: 'To check who you are', retention: 'P30D', slots: [nameSlot] }))
        .body.manifest as {
        manifestId: string;
      }
    ).manifestId;
    const send = async (recipientEmail: string) =>
      ((await api.post('/org/v1/requests', org, { manifestId, recipientEmail })).body.request as { requestId: string }).requestId;
    const toSecondary = await send(secondary);
    const toLogin = await send(ann.email);

    const mine = await api.post('/graphql', ann.token, { query: REQUESTS });
    const ids = (mine.body.data as { user: { requests: Array<{ requestId: string }> } }).user.requests.map((r) => r.requestId);
    expect(ids).to.include(toLogin);
    expect(ids).to.not.include(toSecondary);
  });
});
