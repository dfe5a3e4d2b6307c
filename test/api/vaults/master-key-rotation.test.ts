import { expect } from 'chai';
import { generateMasterKey, generatePrivateJwk, serializeJwkSet } from '../../../src/identity/keys/index.js';
import { VaultKeyring } from '../../../src/vaults/keyring.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../../support/databases.js';
import { client } from '../../support/http.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService } from '../support/service.js';

describe(`MASTER_KEY rotation (issue 6; ${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;
  before(async () => {
    t = await openTestDatabase();
  });
  after(() => t.drop());

  it('re-wraps the data keys: after a restart on the new key, people keep their account and their documents open', async () => {
    const mailer = new RecordingMailer();
    const jwt = serializeJwkSet([await generatePrivateJwk()]);
    const [oldKey, newKey] = [generateMasterKey(), generateMasterKey()];
    const email = 'rotate@example.com';
    const login = async (url: string) => {
      await client(url).post('/auth/send-otp', { email });
      return ((await client(url).post('/auth/verify-otp', { email, code: mailer.lastCodeFor(email) })).body as { token: string }).token;
    };

    const before = await startTestService({
      database: t,
      domain: { mailer, env: { JWT_PRIVATE_KEY: jwt, MASTER_KEY: oldKey.toString('base64') } },
    });
    const token = await login(before.url);
    const userId = ((await client(before.url).graphql(token, 'mutation { user { register(input: {}) { userId } } }')).body.data as any).user
      .register.userId;
    const created = await client(before.url).graphql(
      token,
      `mutation($i: DocumentInput!) { user { document { create(input: $i) { id } } } }`,
      { i: { name: 'n', documentSchema: { type: 'object' }, data: { kept: 'across rotation' } } },
    );
    const docId = (created.body.data as any).user.document.create.id;
    await before.close();

    expect(await (await VaultKeyring.open(t.db, newKey)).rewrapFrom(oldKey)).to.be.greaterThan(1);

    const after = await startTestService({
      database: t,
      domain: { mailer, env: { JWT_PRIVATE_KEY: jwt, MASTER_KEY: newKey.toString('base64') } },
    });
    try {
      const again = await login(after.url);
      const me = await client(after.url).graphql(again, `query($id: ID!) { user { me { userId } document(id: $id) { data } } }`, {
        id: docId,
      });
      expect(me.body.data).to.deep.equal({ user: { me: { userId }, document: { data: { kept: 'across rotation' } } } });
    } finally {
      await after.close();
    }
  });
});
