import { expect } from 'chai';
import type { Reply } from '../../support/http.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';
import { orgClient, problem, type OrgClient } from './org-client.js';

type Permission = 'request_read' | 'request_manage' | 'manifest_manage' | 'member_manage';
const ALL: Permission[] = ['request_read', 'request_manage', 'manifest_manage', 'member_manage'];
const slot = {
  label: 'Name',
  group: 'Identity',
  multiple: false,
  kind: 'schema',
  target: 'PersonFullName',
  verbs: ['keep'],
  adoption: 'manual',
};

/**
 * Issue 7's matrix: every /org/v1 route × a member token lacking its permission → 403,
 * × another organization's token → 404, × no token → 401, × a user token → 401 (except the two
 * routes that take a user token). Routes that name no id of the organization cannot address
 * another organization's data: the other organization's token reaches its own (checked below).
 */
describe(`organization plane authorization matrix (contract 2-4, 8; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let acme: string;
  let owner: { email: string; token: string };
  let ownerOrg: string;
  let rivalOrg: string;
  let manifestId: string;
  let requestId: string;
  let rivalManifestId: string;
  let rivalRequestId: string;
  const lacking = new Map<Permission, string>();

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    owner = await api.user();
    acme = await api.organization(owner.token, 'Acme');
    ownerOrg = await api.signIn(owner.token, acme);
    const rivalOwner = await api.user();
    const rival = await api.organization(rivalOwner.token, 'Rival');
    rivalOrg = await api.signIn(rivalOwner.token, rival);

    manifestId = (
      (await api.post('/org/v1/manifests', ownerOrg, { name: 'KYC', purpose: 'To check who you are', retention: 'P30D', slots: [slot] }))
        .body.manifest as {
        manifestId: string;
      }
    ).manifestId;
    rivalManifestId = (
      (await api.post('/org/v1/manifests', rivalOrg, { name: 'KYC', purpose: 'To check who you are', retention: 'P30D', slots: [slot] }))
        .body.manifest as {
        manifestId: string;
      }
    ).manifestId;
    requestId = (
      (await api.post('/org/v1/requests', ownerOrg, { manifestId, recipientEmail: 'someone@example.com' })).body.request as {
        requestId: string;
      }
    ).requestId;
    rivalRequestId = (
      (await api.post('/org/v1/requests', rivalOrg, { manifestId: rivalManifestId, recipientEmail: 'someone@example.com' })).body
        .request as { requestId: string }
    ).requestId;

    // One member per permission, holding every permission but that one.
    for (const missing of ALL) {
      const member = await api.user();
      const permissions = ALL.filter((p) => p !== missing);
      expect((await api.put(`/org/v1/members/${member.email}`, ownerOrg, { permissions })).status).to.equal(200);
      lacking.set(missing, await api.signIn(member.token, acme));
    }
  });
  after(() => service.close());

  type Route = {
    name: string;
    needs: Permission;
    call: (token: string | undefined, ids: { manifest: string; request: string }) => Promise<Reply>;
    addressesIds: boolean;
  };
  const routes = (): Route[] => [
    { name: 'GET /members', needs: 'member_manage', addressesIds: false, call: (t) => api.get('/org/v1/members', t) },
    {
      name: 'PUT /members/{email}',
      needs: 'member_manage',
      addressesIds: false,
      call: (t) => api.put('/org/v1/members/new.member@example.com', t, { permissions: ['request_read'] }),
    },
    {
      name: 'DELETE /members/{email}',
      needs: 'member_manage',
      addressesIds: false,
      call: (t) => api.del(`/org/v1/members/${owner.email}`, t),
    },
    { name: 'GET /key', needs: 'request_read', addressesIds: false, call: (t) => api.get('/org/v1/key', t) },
    { name: 'POST /key/seal', needs: 'member_manage', addressesIds: false, call: (t) => api.post('/org/v1/key/seal', t) },
    { name: 'POST /apps', needs: 'member_manage', addressesIds: false, call: (t) => api.post('/org/v1/apps', t, { name: 'App' }) },
    {
      name: 'POST /manifests',
      needs: 'manifest_manage',
      addressesIds: false,
      call: (t) => api.post('/org/v1/manifests', t, { name: 'M', purpose: 'To check who you are', retention: 'P1D', slots: [slot] }),
    },
    { name: 'GET /manifests', needs: 'request_read', addressesIds: false, call: (t) => api.get('/org/v1/manifests', t) },
    {
      name: 'POST /manifests/{id}/versions',
      needs: 'manifest_manage',
      addressesIds: true,
      call: (t, ids) =>
        api.post(`/org/v1/manifests/${ids.manifest}/versions`, t, { purpose: 'To check who you are', retention: 'P1D', slots: [slot] }),
    },
    {
      name: 'GET /manifests/{id}',
      needs: 'request_read',
      addressesIds: true,
      call: (t, ids) => api.get(`/org/v1/manifests/${ids.manifest}`, t),
    },
    { name: 'GET /requests', needs: 'request_read', addressesIds: false, call: (t) => api.get('/org/v1/requests', t) },
    {
      name: 'GET /requests/{id}',
      needs: 'request_read',
      addressesIds: true,
      call: (t, ids) => api.get(`/org/v1/requests/${ids.request}`, t),
    },
    {
      name: 'POST /requests',
      needs: 'request_manage',
      addressesIds: true,
      call: (t, ids) => api.post('/org/v1/requests', t, { manifestId: ids.manifest, recipientEmail: 'x@example.com' }),
    },
    {
      name: 'POST /requests/{id}/cancel',
      needs: 'request_manage',
      addressesIds: true,
      call: (t, ids) => api.post(`/org/v1/requests/${ids.request}/cancel`, t),
    },
  ];

  it('no token → 401 and a user token → 401 on every route but /organizations and /token', async () => {
    const ids = { manifest: manifestId, request: requestId };
    for (const route of routes()) {
      expect(problem(await route.call(undefined, ids)), `${route.name} without a token`).to.deep.equal({
        status: 401,
        code: 'unauthenticated',
      });
      expect(problem(await route.call(owner.token, ids)), `${route.name} with a user token`).to.deep.equal({
        status: 401,
        code: 'unauthenticated',
      });
    }
    // The two routes that take a user token refuse a member token and no token.
    for (const [path, body] of [
      ['/org/v1/organizations', { name: 'X' }],
      ['/org/v1/token', { organizationId: acme }],
    ] as const) {
      expect(problem(await api.post(path, undefined, body)), `${path} without a token`).to.deep.equal({
        status: 401,
        code: 'unauthenticated',
      });
      expect(problem(await api.post(path, ownerOrg, body)), `${path} with a member token`).to.deep.equal({
        status: 401,
        code: 'unauthenticated',
      });
    }
  });

  it("a member token lacking the route's permission → 403 forbidden on every route", async () => {
    const ids = { manifest: manifestId, request: requestId };
    for (const route of routes()) {
      expect(problem(await route.call(lacking.get(route.needs), ids)), `${route.name} without ${route.needs}`).to.deep.equal({
        status: 403,
        code: 'forbidden',
      });
    }
  });

  it("another organization's token on this organization's ids → 404 not_found, as an unknown id", async () => {
    for (const route of routes().filter((r) => r.addressesIds)) {
      expect(problem(await route.call(rivalOrg, { manifest: manifestId, request: requestId })), `${route.name} by the rival`).to.deep.equal(
        { status: 404, code: 'not_found' },
      );
      expect(
        problem(await route.call(ownerOrg, { manifest: rivalManifestId, request: rivalRequestId })),
        `${route.name} on the rival's ids`,
      ).to.deep.equal({ status: 404, code: 'not_found' });
    }
    // Routes without ids answer the caller's own organization only.
    const rivalMembers = (await api.get('/org/v1/members', rivalOrg)).body.members as Array<{ email: string }>;
    expect(rivalMembers.map((m) => m.email)).to.not.include(owner.email);
    const rivalRequests = (await api.get('/org/v1/requests', rivalOrg)).body.requests as Array<{ requestId: string }>;
    expect(rivalRequests.map((r) => r.requestId)).to.deep.equal([rivalRequestId]);
    const rivalManifests = (await api.get('/org/v1/manifests', rivalOrg)).body.manifests as Array<{ manifestId: string }>;
    expect(rivalManifests.map((m) => m.manifestId)).to.deep.equal([rivalManifestId]);
  });

  it('with every permission the same calls succeed (the matrix is not refusing everything)', async () => {
    const ids = { manifest: manifestId, request: requestId };
    for (const route of routes().filter((r) => !r.name.startsWith('DELETE') && !r.name.includes('cancel') && !r.name.includes('seal'))) {
      const r = await route.call(ownerOrg, ids);
      expect(r.status, `${route.name}: ${JSON.stringify(r.body)}`).to.be.oneOf([200, 201]);
    }
  });
});
