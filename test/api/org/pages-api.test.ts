import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { driver, MANUAL_NAME_SLOT, PASSPORT_SLOT, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';
import { claimsOf, orgClient, problem, type OrgClient } from './org-client.js';

/** The test service's BASE_URL (test/api/support/service.ts). */
const BASE_URL = 'http://service.test';
const REQUESTS = `query { user { requests { requestId purpose retention items { slotId label required } } } }`;
const ACCEPT = 'mutation($r: ID!, $g: [GrantInput!]!) { user { request { accept(requestId: $r, grants: $g) { state } } } }';

describe(`§11 the API the pages need (${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let member: string;
  let organizationId: string;
  const d = driver({ api: () => api, member: () => member });

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    const owner = await api.user();
    organizationId = await api.organization(owner.token, 'Acme Bank');
    member = await api.signIn(owner.token, organizationId);
  });
  after(() => service.close());

  /** A manifest whose name slot is required and whose passport slot is not, sent to a fresh person. */
  async function sentToSomeone(): Promise<{ ann: User; requestId: string; name: string; passport: string }> {
    const manifest = await d.manifest([{ ...MANUAL_NAME_SLOT, required: true }, PASSPORT_SLOT], 'P90D');
    const ann = await api.user();
    const requestId = await d.send(manifest.manifestId, ann.email);
    return { ann, requestId, name: manifest.slots[0]!.slotId, passport: manifest.slots[1]!.slotId };
  }

  describe('§11 required slots and the person’s view of a request', () => {
    it('accept without a grant for every required slot is BAD_USER_INPUT naming the slots; the request stays pending', async () => {
      const { ann, requestId, name } = await sentToSomeone();
      const error = d.errorOf(await d.gql(ann, ACCEPT, { r: requestId, g: [] }));
      expect(error.extensions.code).to.equal('BAD_USER_INPUT');
      expect(error.message).to.contain(`"Name" (${name})`).and.not.contain('Passport');
      const [mine] = d.ok(await d.gql(ann, `query { user { requests { state } } }`)).user.requests as Array<{ state: string }>;
      expect(mine!.state).to.equal('pending');
    });

    it('accept with a grant for every required slot succeeds, optional slots left out', async () => {
      const { ann, requestId, name } = await sentToSomeone();
      const doc = await d.createDoc(ann, 'PersonFullName', { givenName: 'Ann', familyName: 'Example' });
      const accepted = d.ok(await d.gql(ann, ACCEPT, { r: requestId, g: [{ slotId: name, resourceIds: [doc] }] }));
      expect(accepted.user.request.accept.state).to.equal('active');
    });

    it('the person’s Request carries the purpose and retention of its manifest version, and each item whether it is required', async () => {
      const { ann, requestId, name, passport } = await sentToSomeone();
      const [request] = d.ok(await d.gql(ann, REQUESTS)).user.requests as Array<Record<string, unknown>>;
      expect(request).to.deep.equal({
        requestId,
        purpose: 'To check who you are',
        retention: 'P90D',
        items: [
          { slotId: name, label: 'Name', required: true },
          { slotId: passport, label: 'Passport', required: false },
        ],
      });
    });
  });

  describe('§11 mails link to the pages', () => {
    it('an invitation mail links to {BASE_URL}/requests/{requestId}', async () => {
      const { ann, requestId } = await sentToSomeone();
      const mail = mailer.sent.findLast((m) => m.to === ann.email)!;
      expect(mail.subject).to.contain('"Acme Bank"');
      expect(mail.text).to.contain(`\n${BASE_URL}/requests/${requestId}\n`);
      expect(mail.text.match(/[a-z]+:\/\//g)).to.deep.equal(['http://']);
    });

    it('adding a member by email mails that address the organization’s name and {BASE_URL}/org/{organizationId}/requests', async () => {
      const email = `new-${Date.now()}@example.com`;
      expect((await api.put(`/org/v1/members/${email}`, member, { permissions: ['request_read'] })).status).to.equal(200);
      const mails = mailer.sent.filter((m) => m.to === email);
      expect(mails).to.have.length(1);
      expect(mails[0]!.subject + mails[0]!.text).to.contain('"Acme Bank"');
      expect(mails[0]!.text).to.contain(`\n${BASE_URL}/org/${organizationId}/requests\n`);
    });

    it('a member set again, or given other permissions, gets no mail', async () => {
      const email = `again-${Date.now()}@example.com`;
      await api.put(`/org/v1/members/${email}`, member, { permissions: ['request_read'] });
      await api.put(`/org/v1/members/${email}`, member, { permissions: ['request_read'] });
      await api.put(`/org/v1/members/${email}`, member, { permissions: ['request_read', 'request_manage'] });
      expect(mailer.sent.filter((m) => m.to === email)).to.have.length(1);
    });
  });

  describe('§11 GET /org/v1/organizations', () => {
    it('lists the caller’s memberships: organizationId, name, permissions, joinedAt', async () => {
      const bea = await api.user();
      const own = await api.organization(bea.token, 'Bea Trust');
      await api.put(`/org/v1/members/${bea.email}`, member, { permissions: ['request_read'] });
      const r = await api.get('/org/v1/organizations', bea.token);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      const organizations = r.body.organizations as Array<Record<string, unknown>>;
      expect(organizations.map(({ joinedAt: _, ...o }) => o)).to.deep.equal([
        { organizationId: own, name: 'Bea Trust', permissions: ['request_read', 'request_manage', 'manifest_manage', 'member_manage'] },
        { organizationId, name: 'Acme Bank', permissions: ['request_read'] },
      ]);
      for (const o of organizations) expect(o.joinedAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('a user of no organization gets an empty list; a removed membership is gone', async () => {
      const cy = await api.user();
      expect((await api.get('/org/v1/organizations', cy.token)).body).to.deep.equal({ organizations: [] });
      await api.put(`/org/v1/members/${cy.email}`, member, { permissions: ['request_read'] });
      await api.del(`/org/v1/members/${cy.email}`, member);
      expect((await api.get('/org/v1/organizations', cy.token)).body).to.deep.equal({ organizations: [] });
    });

    it('an unregistered user is refused 403 as on every user route; no token or a member token 401; a query parameter 400', async () => {
      const fresh = await api.user({ register: false });
      expect(problem(await api.get('/org/v1/organizations', fresh.token))).to.deep.equal({ status: 403, code: 'forbidden' });
      expect(problem(await api.get('/org/v1/organizations'))).to.deep.equal({ status: 401, code: 'unauthenticated' });
      expect(claimsOf(member).aud).to.equal('org');
      expect(problem(await api.get('/org/v1/organizations', member))).to.deep.equal({ status: 401, code: 'unauthenticated' });
      expect(problem(await api.get('/org/v1/organizations?all=1', (await api.user()).token))).to.deep.equal({
        status: 400,
        code: 'invalid_request',
      });
    });
  });
});
