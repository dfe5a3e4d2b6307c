import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { TestClock } from '../../support/recording-mailer.js';
import { problem, startOrgService, type OrgClient } from '../org/org-client.js';
import type { TestService } from '../support/service.js';

describe(`§10.11 a removed member's tokens stay dead (${mainBackend})`, function () {
  this.timeout(60_000);
  // Stopped: the removal and the re-adding happen within the same second as the token's issue.
  const clock = new TestClock(Date.now());
  let service: TestService;
  let api: OrgClient;

  before(async () => {
    ({ service, api } = await startOrgService({ env: {}, now: clock.now }));
  });
  after(() => service.close());

  it('given a member removed and added again at once, a token issued before the removal stays 401; one issued after works', async () => {
    const owner = await api.user();
    const org = await api.organization(owner.token);
    const admin = await api.signIn(owner.token, org);
    const bob = await api.user();
    await api.put(`/org/v1/members/${bob.email}`, admin, { permissions: ['request_read'] });
    const before = await api.signIn(bob.token, org);

    expect((await api.del(`/org/v1/members/${bob.email}`, admin)).status).to.equal(200);
    expect((await api.put(`/org/v1/members/${bob.email}`, admin, { permissions: ['request_read'] })).status).to.equal(200);

    expect(problem(await api.get('/org/v1/key', before))).to.deep.equal({ status: 401, code: 'unauthenticated' });
    const after = await api.signIn(bob.token, org);
    expect((await api.get('/org/v1/key', after)).status).to.equal(200);
    expect(problem(await api.get('/org/v1/key', before))).to.deep.equal({ status: 401, code: 'unauthenticated' });
  });

  it("given a member whose permissions changed, the member's token still works", async () => {
    const owner = await api.user();
    const org = await api.organization(owner.token);
    const admin = await api.signIn(owner.token, org);
    const carol = await api.user();
    await api.put(`/org/v1/members/${carol.email}`, admin, { permissions: ['request_read'] });
    const token = await api.signIn(carol.token, org);
    await api.put(`/org/v1/members/${carol.email}`, admin, { permissions: ['request_read', 'manifest_manage'] });
    expect((await api.get('/org/v1/key', token)).status).to.equal(200);
  });
});
