import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mainBackend } from '../../support/databases.js';
import { client } from '../../support/http.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';

const CREATE = `mutation($input: DocumentInput!) { user { document { create(input: $input) { id version } } } }`;

/**
 * Waiting for a validation worker counts against a job's time budget (docs/decisions.md), and a
 * worker takes from a few hundred ms to a second to start. A budget shorter than that start shows
 * whether the service answered before its workers were ready.
 */
describe(`the first embedded-schema documents after a start (spec 4.2; ${mainBackend})`, function () {
  this.timeout(60_000);
  let service: TestService;
  const mailer = new RecordingMailer();

  before(async () => {
    service = await startTestService({ domain: { mailer, env: { VALIDATION_BUDGET_MS: '250' } } });
  });
  after(() => service.close());

  it('are validated within the budget: the service answers only once its validation workers started', async () => {
    const api = client(service.url);
    const email = `f${randomBytes(4).toString('hex')}@example.com`;
    await api.post('/auth/send-otp', { email });
    const { token } = (await api.post('/auth/verify-otp', { email, code: mailer.lastCodeFor(email) })).body as { token: string };
    await api.graphql(token, 'mutation { user { register(input: {}) { userId } } }');
    const r = await api.graphql(token, CREATE, { input: { name: 'first', documentSchema: { type: 'object' }, data: { n: 1 } } });
    expect(r.body).to.deep.nested.include({ 'data.user.document.create.version': 1 });
  });
});
