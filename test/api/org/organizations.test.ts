import { expect } from 'chai';
import { generateMasterKey, generatePrivateJwk, serializeJwkSet } from '../../../src/identity/keys/index.js';
import { mainBackend, openSecondConnection, type TestDatabase } from '../../support/databases.js';
import { RecordingMailer, TestClock } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';
import { claimsOf, orgClient, problem, type OrgClient } from './org-client.js';

const WARM_SECONDS = 3600;
const ALL = ['request_read', 'request_manage', 'manifest_manage', 'member_manage'];
const NOBODY = '00000000-0000-4000-8000-000000000000';

describe(`organizations, members, the key and apps (contract 2, 8; ${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  const clock = new TestClock(Date.now());
  let env: NodeJS.ProcessEnv;
  let service: TestService;
  let api: OrgClient;
  let owner: { email: string; token: string; expiresAt: string };
  let org: string;
  let ownerToken: string;

  before(async () => {
    // Fixed keys, so a second instance (the restart below) verifies the same tokens.
    env = {
      ORG_KEY_WARM_SECONDS: String(WARM_SECONDS),
      JWT_PRIVATE_KEY: serializeJwkSet([await generatePrivateJwk()]),
      MASTER_KEY: generateMasterKey().toString('base64'),
    };
    service = await startTestService({ domain: { mailer, now: clock.now, env } });
    api = orgClient(service.url, mailer);
    owner = await api.user();
    org = await api.organization(owner.token);
    ownerToken = await api.signIn(owner.token, org);
  });
  after(() => service.close());

  /** A registered user made a member of `org` with `permissions`, signed in. */
  async function memberWith(permissions: string[]): Promise<{ email: string; user: string; token: string }> {
    const u = await api.user();
    expect((await api.put(`/org/v1/members/${u.email}`, ownerToken, { permissions })).status).to.equal(200);
    return { email: u.email, user: u.token, token: await api.signIn(u.token, org) };
  }

  describe('POST /org/v1/organizations', () => {
    it('201 {organization}; the creator is a member with every permission', async () => {
      const r = await api.post('/org/v1/organizations', owner.token, { name: '  Example Ltd  ' });
      expect(r.status).to.equal(201);
      const o = r.body.organization as { organizationId: string; name: string; createdAt: string };
      expect(o.organizationId).to.match(/^[0-9a-f-]{36}$/);
      expect(o).to.include({ name: 'Example Ltd', createdAt: clock.now().toISOString() });
      const t = await api.post('/org/v1/token', owner.token, { organizationId: o.organizationId });
      expect(t.body.permissions).to.deep.equal(ALL);
      const members = await api.get('/org/v1/members', t.body.token as string);
      expect(members.body).to.deep.equal({ members: [{ email: owner.email, permissions: ALL, addedAt: o.createdAt }] });
    });

    it('needs a registered user: unregistered 403, no token or a member token 401; a missing or blank name 400', async () => {
      const fresh = await api.user({ register: false });
      expect(problem(await api.post('/org/v1/organizations', fresh.token, { name: 'X' }))).to.deep.equal({
        status: 403,
        code: 'forbidden',
      });
      expect(problem(await api.post('/org/v1/organizations', undefined, { name: 'X' }))).to.deep.equal({
        status: 401,
        code: 'unauthenticated',
      });
      expect(problem(await api.post('/org/v1/organizations', ownerToken, { name: 'X' }))).to.deep.equal({
        status: 401,
        code: 'unauthenticated',
      });
      for (const body of [{}, { name: '   ' }, { name: 7 }]) {
        const r = await api.post('/org/v1/organizations', owner.token, body);
        expect(problem(r), JSON.stringify(body)).to.deep.equal({ status: 400, code: 'invalid_request' });
        expect(r.body.detail).to.match(/^name/);
      }
    });
  });

  describe('POST /org/v1/token', () => {
    it("answers a member token of the session: aud org, org and perms claims, same sid, the session's expiresAt", async () => {
      const r = await api.post('/org/v1/token', owner.token, { organizationId: org });
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ organizationId: org, expiresAt: owner.expiresAt });
      expect(r.body.permissions).to.deep.equal(ALL);
      const claims = claimsOf(r.body.token as string);
      const user = claimsOf(owner.token);
      expect(claims).to.include({
        aud: 'org',
        org,
        sub: user.sub,
        sid: user.sid,
        email: owner.email,
        exp: Math.floor(Date.parse(owner.expiresAt) / 1000),
      });
      expect(claims.perms).to.deep.equal(ALL);
    });

    it('makes the key warm for ORG_KEY_WARM_SECONDS', async () => {
      await api.signIn(owner.token, org);
      expect((await api.get('/org/v1/key', ownerToken)).body).to.deep.equal({
        state: 'warm',
        warmUntil: new Date(clock.now().getTime() + WARM_SECONDS * 1000).toISOString(),
      });
    });

    it('404 not_found for a non-member, an unknown and a malformed id alike; 400 without organizationId', async () => {
      const stranger = await api.user();
      const answers = [
        await api.post('/org/v1/token', stranger.token, { organizationId: org }),
        await api.post('/org/v1/token', owner.token, { organizationId: NOBODY }),
        await api.post('/org/v1/token', owner.token, { organizationId: 'not-an-id' }),
        await api.post('/org/v1/token', owner.token, { organizationId: 'x'.repeat(500) }),
      ];
      for (const a of answers) expect(problem(a)).to.deep.equal({ status: 404, code: 'not_found' });
      expect(problem(await api.post('/org/v1/token', owner.token, {}))).to.deep.equal({ status: 400, code: 'invalid_request' });
      expect(problem(await api.post('/org/v1/token', undefined, { organizationId: org }))).to.deep.equal({
        status: 401,
        code: 'unauthenticated',
      });
      expect(problem(await api.post('/org/v1/token', ownerToken, { organizationId: org }))).to.deep.equal({
        status: 401,
        code: 'unauthenticated',
      });
    });

    it('a member added before their account existed signs in once registered', async () => {
      const email = `later${Date.now()}@example.com`;
      expect((await api.put(`/org/v1/members/${email}`, ownerToken, { permissions: ['request_read'] })).status).to.equal(200);
      const u = await api.user({ email, register: false });
      expect(problem(await api.post('/org/v1/token', u.token, { organizationId: org }))).to.deep.equal({ status: 403, code: 'forbidden' });
      await api.post('/graphql', u.token, { query: 'mutation { user { register(input: {}) { userId } } }' });
      const r = await api.post('/org/v1/token', u.token, { organizationId: org });
      expect(r.body.permissions).to.deep.equal(['request_read']);
    });
  });

  describe('members', () => {
    it('PUT adds or changes a member by normalized email; GET lists them with addedAt', async () => {
      const email = `Bob${Date.now()}@Example.COM`;
      const added = await api.put(`/org/v1/members/${encodeURIComponent(`  ${email} `)}`, ownerToken, {
        permissions: ['request_manage', 'request_read', 'request_read'],
      });
      expect(added.status).to.equal(200);
      const normalized = email.toLowerCase();
      expect(added.body.member).to.deep.equal({
        email: normalized,
        permissions: ['request_read', 'request_manage'],
        addedAt: clock.now().toISOString(),
      });
      clock.advance(1000);
      const changed = await api.put(`/org/v1/members/${normalized}`, ownerToken, { permissions: ['manifest_manage'] });
      expect(changed.body.member).to.deep.equal({
        email: normalized,
        permissions: ['manifest_manage'],
        addedAt: (added.body.member as { addedAt: string }).addedAt,
      });
      const list = (await api.get('/org/v1/members', ownerToken)).body.members as Array<{ email: string; addedAt: string }>;
      expect(list.find((m) => m.email === owner.email)).to.deep.include({ permissions: ALL });
      expect(list.find((m) => m.email === normalized)).to.deep.equal(changed.body.member);
      // Oldest membership first.
      expect(list.map((m) => m.addedAt)).to.deep.equal(list.map((m) => m.addedAt).sort());
    });

    it('400 for permissions that are missing, empty, not a list or not the four names (naming the field); 400 invalid_email for a bad address', async () => {
      for (const [body, field] of [
        [{}, /^permissions/],
        [{ permissions: [] }, /^permissions/],
        [{ permissions: 'request_read' }, /^permissions/],
        [{ permissions: ['request_read', 'admin'] }, /^permissions\[1\]/],
      ] as const) {
        const r = await api.put('/org/v1/members/x@example.com', ownerToken, body);
        expect(problem(r), JSON.stringify(body)).to.deep.equal({ status: 400, code: 'invalid_request' });
        expect(r.body.detail).to.match(field);
      }
      expect(problem(await api.put('/org/v1/members/not-an-address', ownerToken, { permissions: ['request_read'] }))).to.deep.equal({
        status: 400,
        code: 'invalid_email',
      });
    });

    it('DELETE removes a member: {removed: true}; then, or for any non-member, 404', async () => {
      const email = `gone${Date.now()}@example.com`;
      await api.put(`/org/v1/members/${email}`, ownerToken, { permissions: ['request_read'] });
      const r = await api.del(`/org/v1/members/${email.toUpperCase()}`, ownerToken);
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({ removed: true });
      expect(problem(await api.del(`/org/v1/members/${email}`, ownerToken))).to.deep.equal({ status: 404, code: 'not_found' });
      expect(problem(await api.del('/org/v1/members/not-an-address', ownerToken))).to.deep.equal({ status: 404, code: 'not_found' });
      const list = (await api.get('/org/v1/members', ownerToken)).body.members as Array<{ email: string }>;
      expect(list.map((m) => m.email)).to.not.include(email);
    });

    it('the last member with member_manage can be neither stripped of it nor removed: 409 conflict', async () => {
      const u = await api.user();
      const solo = await api.organization(u.token, 'Solo');
      const token = await api.signIn(u.token, solo);
      expect(problem(await api.put(`/org/v1/members/${u.email}`, token, { permissions: ['request_read'] }))).to.deep.equal({
        status: 409,
        code: 'conflict',
      });
      expect(problem(await api.del(`/org/v1/members/${u.email}`, token))).to.deep.equal({ status: 409, code: 'conflict' });
      expect((await api.put(`/org/v1/members/${u.email}`, token, { permissions: ['request_read', 'member_manage'] })).status).to.equal(200);
    });

    it("a removed member's token answers 401 unauthenticated from the next request", async () => {
      const bob = await memberWith(['request_read']);
      expect((await api.get('/org/v1/key', bob.token)).status).to.equal(200);
      expect((await api.del(`/org/v1/members/${bob.email}`, ownerToken)).status).to.equal(200);
      expect(problem(await api.get('/org/v1/key', bob.token))).to.deep.equal({ status: 401, code: 'unauthenticated' });
      expect(problem(await api.get('/org/v1/manifests', bob.token))).to.deep.equal({ status: 401, code: 'unauthenticated' });
      expect(problem(await api.post('/org/v1/token', bob.user, { organizationId: org }))).to.deep.equal({ status: 404, code: 'not_found' });
    });

    it("permissions are read from the membership on each request, not from the token's perms claim", async () => {
      const carol = await memberWith(['request_read', 'member_manage']);
      expect((await api.get('/org/v1/members', carol.token)).status).to.equal(200);
      await api.put(`/org/v1/members/${carol.email}`, ownerToken, { permissions: ['request_read'] });
      expect(claimsOf(carol.token).perms).to.include('member_manage');
      expect(problem(await api.get('/org/v1/members', carol.token))).to.deep.equal({ status: 403, code: 'forbidden' });
      expect((await api.get('/org/v1/key', carol.token)).status).to.equal(200);

      const dave = await memberWith(['request_read']);
      await api.put(`/org/v1/members/${dave.email}`, ownerToken, { permissions: ['request_read', 'member_manage'] });
      expect((await api.get('/org/v1/members', dave.token)).status).to.equal(200);
    });

    it('a member token dies with its session', async () => {
      const erin = await memberWith(['request_read']);
      const revoked = await api.post('/graphql', erin.user, {
        query: 'mutation { user { security { revokeAllSessionsIncludingCurrent } } }',
      });
      expect(revoked.body).to.deep.equal({ data: { user: { security: { revokeAllSessionsIncludingCurrent: 1 } } } });
      expect(problem(await api.get('/org/v1/key', erin.token))).to.deep.equal({ status: 401, code: 'unauthenticated' });
    });
  });

  describe('the key', () => {
    it('seal makes it cold until a member signs in again; seal needs member_manage, the key state request_read', async () => {
      await api.signIn(owner.token, org);
      expect((await api.get('/org/v1/key', ownerToken)).body.state).to.equal('warm');
      const reader = await memberWith(['request_read']);
      expect(problem(await api.post('/org/v1/key/seal', reader.token))).to.deep.equal({ status: 403, code: 'forbidden' });
      const sealed = await api.post('/org/v1/key/seal', ownerToken);
      expect(sealed.status).to.equal(200);
      expect(sealed.body).to.deep.equal({ state: 'cold' });
      expect((await api.get('/org/v1/key', reader.token)).body).to.deep.equal({ state: 'cold' });
      expect((await api.post('/org/v1/key/seal', ownerToken)).body).to.deep.equal({ state: 'cold' });
      await api.signIn(reader.user, org);
      expect((await api.get('/org/v1/key', ownerToken)).body.state).to.equal('warm');
      const writer = await memberWith(['manifest_manage']);
      expect(problem(await api.get('/org/v1/key', writer.token))).to.deep.equal({ status: 403, code: 'forbidden' });
    });

    it('goes cold when the warm window has passed', async () => {
      await api.signIn(owner.token, org);
      clock.advance(WARM_SECONDS * 1000 - 1);
      expect((await api.get('/org/v1/key', ownerToken)).body.state).to.equal('warm');
      clock.advance(1);
      expect((await api.get('/org/v1/key', ownerToken)).body).to.deep.equal({ state: 'cold' });
    });

    it('after a restart the key is cold until a member signs in', async () => {
      await api.signIn(owner.token, org);
      clock.advance(1);
      const t = service.t;
      // On PostgreSQL the new instance has its own connections, as a restarted process would.
      const database: TestDatabase = t.url ? { db: openSecondConnection(t), url: t.url, drop: async () => undefined } : t;
      const restarted = await startTestService({ database, domain: { mailer, now: clock.now, env } });
      try {
        const b = orgClient(restarted.url, mailer);
        expect((await api.get('/org/v1/key', ownerToken)).body.state).to.equal('warm');
        expect((await b.get('/org/v1/key', ownerToken)).body).to.deep.equal({ state: 'cold' });
        await b.signIn(owner.token, org);
        expect((await b.get('/org/v1/key', ownerToken)).body.state).to.equal('warm');
        expect((await api.get('/org/v1/key', ownerToken)).body.state).to.equal('warm');
      } finally {
        await restarted.close();
        if (t.url) await database.db.close();
      }
    });
  });

  describe('POST /org/v1/apps', () => {
    it('201 {clientId, name}; needs member_manage and a name', async () => {
      const r = await api.post('/org/v1/apps', ownerToken, { name: 'Onboarding portal' });
      expect(r.status).to.equal(201);
      expect(r.body.clientId).to.match(/^[0-9a-f-]{36}$/);
      expect(r.body.name).to.equal('Onboarding portal');
      expect(problem(await api.post('/org/v1/apps', ownerToken, {}))).to.deep.equal({ status: 400, code: 'invalid_request' });
      const reader = await memberWith(['request_read']);
      expect(problem(await api.post('/org/v1/apps', reader.token, { name: 'x' }))).to.deep.equal({ status: 403, code: 'forbidden' });
    });
  });

  describe('authentication and check order (contract 8: 401, then 403, then 404)', () => {
    const memberRoutes: Array<[string, string]> = [
      ['GET', '/org/v1/members'],
      ['PUT', '/org/v1/members/x@example.com'],
      ['DELETE', '/org/v1/members/x@example.com'],
      ['GET', '/org/v1/key'],
      ['POST', '/org/v1/key/seal'],
      ['POST', '/org/v1/apps'],
      ['POST', '/org/v1/manifests'],
      ['POST', `/org/v1/manifests/${NOBODY}/versions`],
      ['GET', '/org/v1/manifests'],
      ['GET', `/org/v1/manifests/${NOBODY}`],
    ];
    const send = (method: string, path: string, token?: string) =>
      method === 'GET'
        ? api.get(path, token)
        : method === 'PUT'
          ? api.put(path, token, { permissions: 'bad' })
          : method === 'DELETE'
            ? api.del(path, token)
            : api.post(path, token, { bad: true });

    it('no token, a garbage token or a user token: 401 on every member route', async () => {
      for (const [method, path] of memberRoutes) {
        for (const token of [undefined, 'abc.def.ghi', owner.token]) {
          expect(problem(await send(method, path, token)), `${method} ${path}`).to.deep.equal({ status: 401, code: 'unauthenticated' });
        }
      }
    });

    it("a member without the route's permission: 403 before any 400 or 404", async () => {
      const nobody = await memberWith(['request_manage']);
      for (const [method, path] of memberRoutes) {
        expect(problem(await send(method, path, nobody.token)), `${method} ${path}`).to.deep.equal({ status: 403, code: 'forbidden' });
      }
    });
  });
});
