import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { client } from '../../support/http.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import type { TestService } from '../support/service.js';
import { twoInstances, type TwoInstances } from '../support/two-instances.js';

describe(`two service instances on one database (spec 2.1, 5.3; ${mainBackend})`, function () {
  this.timeout(60_000);
  let a: TestService;
  let b: TestService;
  let both: TwoInstances;
  const mailer = new RecordingMailer();

  before(async () => {
    both = await twoInstances(mailer);
    ({ a, b } = both);
  });
  after(() => both.close());

  it('a code sent through one instance logs in through the other, and the limits are shared', async () => {
    const email = 'twice@example.com';
    await client(a.url).post('/auth/send-otp', { email });
    await client(b.url).post('/auth/send-otp', { email });
    await client(a.url).post('/auth/send-otp', { email });
    expect((await client(b.url).post('/auth/send-otp', { email })).status).to.equal(429);
    const login = await client(b.url).post('/auth/verify-otp', { email, code: mailer.lastCodeFor(email) });
    expect(login.status).to.equal(200);
  });

  it('a session revoked through one instance fails on the very next request to the other', async () => {
    const email = 'revoked@example.com';
    await client(a.url).post('/auth/send-otp', { email });
    const { token } = (await client(a.url).post('/auth/verify-otp', { email, code: mailer.lastCodeFor(email) })).body as { token: string };
    await client(a.url).graphql(token, 'mutation { user { register(input: {}) { userId } } }');
    expect((await client(b.url).post('/auth/renew', undefined, token)).status).to.equal(200);
    const r = await client(a.url).graphql(token, 'mutation { user { security { revokeAllSessionsIncludingCurrent } } }');
    expect(r.body).to.deep.equal({ data: { user: { security: { revokeAllSessionsIncludingCurrent: 1 } } } });
    expect((await client(b.url).post('/auth/renew', undefined, token)).status).to.equal(401);
  });
});
