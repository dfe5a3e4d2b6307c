import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mainBackend } from '../../support/databases.js';
import { client } from '../../support/http.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';

type Gql = { data?: unknown; errors?: Array<{ message: string; extensions: { code: string } }> };

/** n fragments, each spreading the next one twice: 2^n expansions for a walker without a memo. */
function doublingChain(n: number, last: string): string {
  const chain = Array.from({ length: n - 1 }, (_, i) => `fragment F${i} on UserQuery { ...F${i + 1} ...F${i + 1} }`);
  return `{ user { ...F0 } } ${chain.join(' ')} fragment F${n - 1} on UserQuery { ${last} }`;
}

// Loose bounds for a loaded 2-core machine; the answers take a few milliseconds.
const FAST_MS = 500;

describe(`hostile GraphQL documents are refused before they cost anything (contract 5; ${mainBackend})`, function () {
  this.timeout(60_000);
  let service: TestService;
  let api: ReturnType<typeof client>;
  let token: string;
  const mailer = new RecordingMailer();

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = client(service.url);
    const email = `h${randomBytes(4).toString('hex')}@example.com`;
    await api.post('/auth/send-otp', { email });
    token = ((await api.post('/auth/verify-otp', { email, code: mailer.lastCodeFor(email) })).body as { token: string }).token;
    await api.graphql(token, 'mutation { user { register(input: {}) { userId } } }');
  });
  after(() => service.close());

  /** Sends the document while /healthz is asked too; both must answer fast. */
  async function sendHostile(query: string): Promise<Gql> {
    const started = performance.now();
    const graphql = api.graphql(token, query).then((r) => ({ body: r.body, ms: performance.now() - started }));
    const health = fetch(`${service.url}/healthz`).then((r) => ({ status: r.status, ms: performance.now() - started }));
    const [answer, healthz] = await Promise.all([graphql, health]);
    console.log(`      refused in ${answer.ms.toFixed(1)} ms (${query.length} bytes); /healthz in ${healthz.ms.toFixed(1)} ms`);
    expect(answer.ms, 'the refusal round trip').to.be.below(FAST_MS);
    expect(healthz.status).to.equal(200);
    expect(healthz.ms, '/healthz round trip').to.be.below(FAST_MS);
    return answer.body;
  }

  it('refuses 40 doubling fragments ending in a cycle, naming the cycle', async () => {
    const r = await sendHostile(doublingChain(40, '...F0'));
    expect(r.errors?.[0]?.extensions.code).to.equal('BAD_USER_INPUT');
    expect(r.errors?.[0]?.message).to.match(/fragment F\d+ spreads itself/);
    expect(r.data).to.equal(undefined);
  });

  it('refuses 40 doubling fragments ending in an unknown fragment, naming it', async () => {
    const r = await sendHostile(doublingChain(40, '...Nowhere'));
    expect(r.errors?.[0]?.extensions.code).to.equal('BAD_USER_INPUT');
    expect(r.errors?.[0]?.message).to.equal('unknown fragment Nowhere');
  });

  it('refuses 48 doubling fragments without a cycle: they expand past the field limit', async () => {
    const r = await sendHostile(doublingChain(48, 'me { email }'));
    expect(r.errors?.[0]?.extensions.code).to.equal('BAD_USER_INPUT');
    expect(r.errors?.[0]?.message).to.match(/more than 200 fields/);
  });

  it('refuses a document of more tokens than the bound before validating it', async () => {
    const r = await sendHostile(`{ user { ${'a '.repeat(20_001)}} }`);
    expect(r.errors?.[0]?.extensions.code).to.equal('BAD_USER_INPUT');
    expect(r.errors?.[0]?.message).to.match(/20000 tokens/);
  });

  it('refuses a document nested thousands of levels deep before parsing recurses into it', async () => {
    const r = await sendHostile(`{ user { ${'me { '.repeat(4000)}email ${'} '.repeat(4000)}} }`);
    expect(r.errors?.[0]?.extensions.code).to.equal('BAD_USER_INPUT');
    expect(r.errors?.[0]?.message).to.match(/nested more than 64 levels/);
  });

  it('refuses more than 10 document mutations in one request, aliases counted', async () => {
    const validate = (i: number) => `v${i}: validate(input: { name: "n", documentSchema: {}, data: {} }) { valid }`;
    const r = (
      await api.graphql(token, `mutation { user { document { ${Array.from({ length: 11 }, (_, i) => validate(i)).join(' ')} } } }`)
    ).body as Gql;
    expect(r.errors?.[0]?.extensions.code).to.equal('BAD_USER_INPUT');
    expect(r.errors?.[0]?.message).to.equal('a request may run at most 10 document mutations');
    expect(r.data).to.equal(undefined);
  });

  it('still answers a plain query with fragments', async () => {
    const r = (await api.graphql(token, '{ user { ...A } } fragment A on UserQuery { me { ...B } } fragment B on Me { email }'))
      .body as Gql;
    expect(r.errors).to.equal(undefined);
  });
});
