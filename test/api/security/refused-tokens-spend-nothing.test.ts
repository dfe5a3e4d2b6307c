import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import type { Reply } from '../../support/http.js';
import { TestClock } from '../../support/recording-mailer.js';
import { claimsOf, startOrgService, type OrgClient } from '../org/org-client.js';
import type { TestService } from '../support/service.js';

const ORG_BURST = 30;
const statuses = (replies: readonly Reply[]) => replies.map((r) => r.status);

describe(`§10.9 rate limits count only authenticated callers (${mainBackend})`, function () {
  this.timeout(60_000);
  // Stopped: no bucket refills, so what a bucket lets through is exactly what was left in it.
  const clock = new TestClock(Date.now());
  let service: TestService;
  let api: OrgClient;

  before(async () => {
    const env = {
      RATE_LIMIT_TOKEN_PER_SECOND: '1',
      RATE_LIMIT_TOKEN_BURST: '1000',
      RATE_LIMIT_ORG_PER_SECOND: '1',
      RATE_LIMIT_ORG_BURST: String(ORG_BURST),
    };
    ({ service, api } = await startOrgService({ env, now: clock.now }));
  });
  after(() => service.close());

  it("given five removed members hammering the organization's routes, every one of their calls is 401 and the admin keeps the organization's whole allowance", async () => {
    const owner = await api.user();
    const org = await api.organization(owner.token);
    const admin = await api.signIn(owner.token, org);
    const removed: string[] = [];
    for (let i = 0; i < 5; i++) {
      const user = await api.user();
      await api.put(`/org/v1/members/${user.email}`, admin, { permissions: ['request_read'] });
      removed.push(await api.signIn(user.token, org));
      await api.del(`/org/v1/members/${user.email}`, admin);
    }
    const spentBySetup = 10;

    const hammering = await Promise.all(removed.flatMap((token) => Array.from({ length: 20 }, () => api.get('/org/v1/key', token))));
    expect(new Set(statuses(hammering))).to.deep.equal(new Set([401]));

    const adminCalls: Reply[] = [];
    for (let i = 0; i < ORG_BURST - spentBySetup; i++) adminCalls.push(await api.get('/org/v1/key', admin));
    expect(statuses(adminCalls)).to.deep.equal(adminCalls.map(() => 200));
  });

  it("given a revoked session's member token hammering, the organization's other members keep its whole allowance", async () => {
    const owner = await api.user();
    const org = await api.organization(owner.token);
    const admin = await api.signIn(owner.token, org);
    const second = await api.user({ email: owner.email });
    const revokedMember = await api.signIn(second.token, org);
    const revoke = await api.post('/graphql', owner.token, {
      query: 'mutation($s: ID!) { user { security { revokeSession(sessionId: $s) } } }',
      variables: { s: claimsOf(second.token).sid },
    });
    expect(revoke.body).to.deep.equal({ data: { user: { security: { revokeSession: true } } } });

    const hammering = await Promise.all(Array.from({ length: 50 }, () => api.get('/org/v1/members', revokedMember)));
    expect(new Set(statuses(hammering))).to.deep.equal(new Set([401]));

    const adminCalls: Reply[] = [];
    for (let i = 0; i < ORG_BURST; i++) adminCalls.push(await api.get('/org/v1/members', admin));
    expect(statuses(adminCalls)).to.deep.equal(adminCalls.map(() => 200));
  });
});
