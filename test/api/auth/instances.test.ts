import { expect } from 'chai';
import { generateMasterKey, generatePrivateJwk, serializeJwkSet } from '../../../src/identity/keys/index.js';
import { mainBackend, openSecondConnection, openTestDatabase, type TestDatabase } from '../../support/databases.js';
import { client } from '../../support/http.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';

describe(`two service instances on one database (spec 2.1, 5.3; ${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;
  let a: TestService;
  let b: TestService;
  const mailer = new RecordingMailer();

  before(async () => {
    t = await openTestDatabase();
    const env = { JWT_PRIVATE_KEY: serializeJwkSet([await generatePrivateJwk()]), MASTER_KEY: generateMasterKey().toString('base64') };
    // On PostgreSQL the second instance has its own connections, as another process would.
    const second: TestDatabase = t.url ? { db: openSecondConnection(t), url: t.url, drop: async () => undefined } : t;
    a = await startTestService({ database: t, domain: { mailer, env } });
    b = await startTestService({ database: second, domain: { mailer, env } });
  });
  after(async () => {
    await b.close();
    await a.close();
    if (t.url) await b.t.db.close();
    await t.drop();
  });

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
