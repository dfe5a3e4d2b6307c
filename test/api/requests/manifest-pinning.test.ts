import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';
import { orgClient, type OrgClient } from '../org/org-client.js';

const nameSlot = { label: 'Name', group: 'Identity', multiple: false, kind: 'schema', target: 'PersonFullName', verbs: ['keep'], adoption: 'manual' };
const bankSlot = { label: 'Bank', group: 'Money', multiple: false, kind: 'schema', target: 'PersonBankAccount', verbs: ['keep'], adoption: 'manual' };

describe(`manifest versions and live connections (spec 2.2, 9; contract 3, 4; ${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
  });
  after(() => service.close());

  it('a request pins the newest version at send; publishing a new version never widens a live connection', async () => {
    const owner = await api.user();
    const org = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    const manifest = (await api.post('/org/v1/manifests', org, { name: 'KYC', retention: 'P30D', slots: [nameSlot] })).body.manifest as { manifestId: string; slots: Array<{ slotId: string }> };
    const ann = await api.user();
    const name = await api.post('/graphql', ann.token, {
      query: 'mutation($i: DocumentInput!) { user { document { create(input: $i) { id } } } }',
      variables: { i: { name: 'n', schemaRef: 'http://service.test/schemas/core/PersonFullName.json', data: { givenName: 'Ann', familyName: 'E' } } },
    });
    const nameId = ((name.body.data as any).user.document.create.id) as string;
    const sent = (await api.post('/org/v1/requests', org, { manifestId: manifest.manifestId, recipientEmail: ann.email })).body.request as { requestId: string; manifestVersion: number };
    expect(sent.manifestVersion).to.equal(1);
    const accepted = await api.post('/graphql', ann.token, {
      query: 'mutation($r: ID!, $g: [GrantInput!]!) { user { request { accept(requestId: $r, grants: $g) { state manifestVersion } } } }',
      variables: { r: sent.requestId, g: [{ slotId: manifest.slots[0]!.slotId, resourceIds: [nameId] }] },
    });
    expect((accepted.body.data as any).user.request.accept).to.deep.equal({ state: 'active', manifestVersion: 1 });

    const v2 = await api.post(`/org/v1/manifests/${manifest.manifestId}/versions`, org, { retention: 'P365D', slots: [{ ...nameSlot, slotId: manifest.slots[0]!.slotId }, bankSlot] });
    expect((v2.body.manifest as { version: number }).version).to.equal(2);

    const detail = (await api.get(`/org/v1/requests/${sent.requestId}`, org)).body as { request: { manifestVersion: number; state: string }; items: unknown[] };
    expect(detail.request.manifestVersion).to.equal(1);
    expect(detail.items).to.have.length(1);
    const later = (await api.post('/org/v1/requests', org, { manifestId: manifest.manifestId, recipientEmail: ann.email })).body.request as { manifestVersion: number };
    expect(later.manifestVersion).to.equal(2);
  });
});
