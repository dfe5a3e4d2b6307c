import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, type OrgClient } from '../org/org-client.js';
import { driver, type Gql } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';

// Every field is non-null: the first refused field nulls `data`, and GraphQL runs no root field after it.
const ERASE_THEN_CREATE = `mutation($code: String!) {
  erased: user { security { eraseAccount(code: $code) } }
  created: user { entity { create(name: "Lee Holdings") { entityId } } }
}`;

describe(`§10.10 erasure ends the GraphQL request it runs in (${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  const { gql, ok, mark, appendedSince } = driver({ api: () => api, log: () => service.db });

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
  });
  after(() => service.close());

  it('given eraseAccount succeeded, the next field of the request answers UNAUTHENTICATED and writes nothing', async () => {
    const person = await api.user();
    ok(await gql(person, 'mutation { user { security { requestErasure } } }'));

    const before = await mark();
    const answer: Gql = await gql(person, ERASE_THEN_CREATE, { code: mailer.lastCodeFor(person.email) });

    expect(answer.errors?.map((e) => [e.extensions.code, (e as { path?: unknown }).path])).to.deep.equal([
      ['UNAUTHENTICATED', ['created']],
    ]);
    const appended = await appendedSince(before);
    expect(appended).to.include('AccountErased');
    expect(appended).to.not.include('EntityCreated');
  });
});
