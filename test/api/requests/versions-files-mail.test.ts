import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';
import { orgClient, type OrgClient } from '../org/org-client.js';

const nameSlot = {
  label: 'Name',
  group: 'Identity',
  multiple: false,
  kind: 'schema',
  target: 'PersonFullName',
  verbs: ['keep'],
  adoption: 'manual',
};
const bankSlot = {
  label: 'Bank',
  group: 'Money',
  multiple: false,
  kind: 'schema',
  target: 'PersonBankAccount',
  verbs: ['keep'],
  adoption: 'manual',
};
const fileSlot = {
  label: 'Passport scan',
  group: 'Identity',
  multiple: false,
  kind: 'file',
  target: 'PassportScan',
  verbs: ['keep'],
  adoption: 'manual',
};
const ACCEPT = 'mutation($r: ID!, $g: [GrantInput!]!) { user { request { accept(requestId: $r, grants: $g) { state } } } }';

// GraphQL answers are data of the shape the query names; tests read them loosely.
type Gql = { data?: any; errors?: Array<{ message: string; extensions: { code: string } }> };

describe(`requests: pinned versions, file slots, the invitation mail (contract 3-5, 8; ${mainBackend})`, function () {
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
    const manifest = (
      await api.post('/org/v1/manifests', org, { name: 'KYC', purpose: 'To check who you are', retention: 'P30D', slots: [nameSlot] })
    ).body.manifest as {
      manifestId: string;
      slots: Array<{ slotId: string }>;
    };
    const ann = await api.user();
    const name = await api.post('/graphql', ann.token, {
      query: 'mutation($i: DocumentInput!) { user { document { create(input: $i) { id } } } }',
      variables: {
        i: { name: 'n', schemaRef: 'http://service.test/schemas/core/PersonFullName.json', data: { givenName: 'Ann', familyName: 'E' } },
      },
    });
    const nameId = (name.body.data as any).user.document.create.id as string;
    const sent = (await api.post('/org/v1/requests', org, { manifestId: manifest.manifestId, recipientEmail: ann.email })).body.request as {
      requestId: string;
      manifestVersion: number;
    };
    expect(sent.manifestVersion).to.equal(1);
    const accepted = await api.post('/graphql', ann.token, {
      query: 'mutation($r: ID!, $g: [GrantInput!]!) { user { request { accept(requestId: $r, grants: $g) { state manifestVersion } } } }',
      variables: { r: sent.requestId, g: [{ slotId: manifest.slots[0]!.slotId, resourceIds: [nameId] }] },
    });
    expect((accepted.body.data as any).user.request.accept).to.deep.equal({ state: 'active', manifestVersion: 1 });

    const v2 = await api.post(`/org/v1/manifests/${manifest.manifestId}/versions`, org, {
      purpose: 'To check who you are',
      retention: 'P365D',
      slots: [{ ...nameSlot, slotId: manifest.slots[0]!.slotId }, bankSlot],
    });
    expect((v2.body.manifest as { version: number }).version).to.equal(2);

    const detail = (await api.get(`/org/v1/requests/${sent.requestId}`, org)).body as {
      request: { manifestVersion: number; state: string };
      items: unknown[];
    };
    expect(detail.request.manifestVersion).to.equal(1);
    expect(detail.items).to.have.length(1);
    const later = (await api.post('/org/v1/requests', org, { manifestId: manifest.manifestId, recipientEmail: ann.email })).body
      .request as { manifestVersion: number };
    expect(later.manifestVersion).to.equal(2);
  });

  it('a file slot takes a file and shows its version; documents on a file slot and files on a schema slot are refused', async () => {
    const owner = await api.user();
    const org = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    const manifest = (
      await api.post('/org/v1/manifests', org, {
        name: 'KYC',
        purpose: 'To check who you are',
        retention: 'P30D',
        slots: [fileSlot, nameSlot],
      })
    ).body.manifest as { manifestId: string; slots: Array<{ slotId: string }> };
    const [scanSlot, docSlot] = manifest.slots.map((s) => s.slotId) as [string, string];
    const ann = await api.user();
    const upload = async (path: string) => {
      const r = await fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ann.token}`, 'content-type': 'image/png' },
        body: Buffer.from([137, 80, 78, 71]),
      });
      expect(r.status).to.equal(201);
      return (await r.json()) as { fileId: string; version: number };
    };
    const { fileId } = await upload('/vault/files?fileName=passport.png&label=Passport');
    const docId = (
      (
        await api.post('/graphql', ann.token, {
          query: 'mutation($i: DocumentInput!) { user { document { create(input: $i) { id } } } }',
          variables: {
            i: {
              name: 'n',
              schemaRef: 'http://service.test/schemas/core/PersonFullName.json',
              data: { givenName: 'Ann', familyName: 'E' },
            },
          },
        })
      ).body as Gql
    ).data.user.document.create.id as string;

    const send = async () =>
      (
        (await api.post('/org/v1/requests', org, { manifestId: manifest.manifestId, recipientEmail: ann.email })).body.request as {
          requestId: string;
        }
      ).requestId;
    const accept = async (requestId: string, grants: unknown[]) =>
      (await api.post('/graphql', ann.token, { query: ACCEPT, variables: { r: requestId, g: grants } })).body as Gql;

    const wrongKind = await accept(await send(), [{ slotId: scanSlot, resourceIds: [docId] }]);
    expect(wrongKind.errors?.[0]?.extensions.code).to.equal('BAD_USER_INPUT');
    const fileOnSchema = await accept(await send(), [{ slotId: docSlot, resourceIds: [fileId] }]);
    expect(fileOnSchema.errors?.[0]?.extensions.code).to.equal('BAD_USER_INPUT');

    const requestId = await send();
    expect((await accept(requestId, [{ slotId: scanSlot, resourceIds: [fileId] }])).data.user.request.accept.state).to.equal('active');
    const records = async () =>
      (
        (await api.get(`/org/v1/requests/${requestId}`, org)).body.items as Array<{
          slotId: string;
          records: Array<{ resourceId: string; sourceVersion: number; status: string }>;
        }>
      ).find((i) => i.slotId === scanSlot)!.records;
    expect(await records()).to.deep.equal([{ resourceId: fileId, participant: null, sourceVersion: 1, status: 'available' }]);
    await upload(`/vault/files/${fileId}/versions?fileName=passport-2.png`);
    expect((await records())[0]!.sourceVersion).to.equal(2);
  });

  it('goes to the normalized recipient; when mail is down the request still stands and the failure is logged', async () => {
    const owner = await api.user();
    const org = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    const { manifestId } = (
      await api.post('/org/v1/manifests', org, { name: 'KYC', purpose: 'To check who you are', retention: 'P30D', slots: [nameSlot] })
    ).body.manifest as { manifestId: string };

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
