import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { mainBackend } from '../support/databases.js';
import type { Reply } from '../support/http.js';
import { RecordingMailer } from '../support/recording-mailer.js';
import { orgClient, problem, type OrgClient } from './org/org-client.js';
import { startTestService, type TestService } from './support/service.js';

const ME = { query: '{ user { me { email } } }' };
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const PERSON_FULL_NAME = 'http://service.test/schemas/core/PersonFullName.json';

/** R-LIM-12: the organization plane and GraphQL, per session and per organization. */
describe(`fair use: rate limits per token and per organization (contract 9; ${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;

  before(async () => {
    service = await startTestService({
      domain: {
        mailer,
        env: { RATE_LIMIT_TOKEN_PER_SECOND: '5', RATE_LIMIT_TOKEN_BURST: '10', RATE_LIMIT_ORG_PER_SECOND: '5', RATE_LIMIT_ORG_BURST: '16' },
      },
    });
    api = orgClient(service.url, mailer);
  });
  after(() => service.close());

  /** A new organization and its owner's member token. */
  async function organization(): Promise<{ id: string; token: string }> {
    const owner = await api.user();
    const id = await api.organization(owner.token);
    return { id, token: await api.signIn(owner.token, id) };
  }
  async function memberOf(org: { id: string; token: string }): Promise<string> {
    const user = await api.user();
    expect((await api.put(`/org/v1/members/${user.email}`, org.token, { permissions: ['request_read'] })).status).to.equal(200);
    return api.signIn(user.token, org.id);
  }
  const burst = async (n: number, call: () => Promise<Reply>): Promise<Reply[]> => {
    const replies: Reply[] = [];
    for (let i = 0; i < n; i++) replies.push(await call());
    return replies;
  };
  const statuses = (replies: readonly Reply[]) => replies.map((r) => r.status);
  const eventCount = async () => (await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM es.events')).rows[0]!.n;

  it('past its burst a member token gets 429 rate_limited with Retry-After, writes nothing, and gets through again after waiting that long', async () => {
    const org = await organization();
    const replies = await burst(14, () => api.get('/org/v1/requests', org.token));
    const ok = replies.filter((r) => r.status === 200).length;
    // The burst of 10 (less the sign-in's own request), and what 5 a second refill while they run.
    expect(ok, statuses(replies).join(',')).to.be.within(9, 11);
    const refused = replies.filter((r) => r.status !== 200);
    expect(refused.map(problem)).to.deep.equal(refused.map(() => ({ status: 429, code: 'rate_limited' })));
    const retryAfter = Number(refused[0]!.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 2);

    const before = await eventCount();
    const invite = await api.post('/org/v1/requests', org.token, {
      manifestId: '00000000-0000-4000-8000-000000000000',
      recipientEmail: 'x@example.com',
    });
    expect(problem(invite)).to.deep.equal({ status: 429, code: 'rate_limited' });
    expect(await eventCount()).to.equal(before);

    await new Promise((r) => setTimeout(r, retryAfter * 1000));
    expect((await api.get('/org/v1/requests', org.token)).status).to.equal(200);
  });

  it('GraphQL: past its burst a user token gets 429 problem+json rate_limited with Retry-After, before anything runs', async () => {
    const user = await api.user();
    const replies = await burst(14, () => api.post('/graphql', user.token, ME));
    const refused = replies.filter((r) => r.status !== 200);
    expect(refused.length, statuses(replies).join(',')).to.be.within(2, 5);
    expect(refused.map(problem)).to.deep.equal(refused.map(() => ({ status: 429, code: 'rate_limited' })));
    expect(refused.every((r) => r.headers.get('content-type')?.startsWith('application/problem+json'))).to.equal(true);
    expect(Number(refused[0]!.headers.get('retry-after'))).to.be.at.least(1);
  });

  it("an organization's tokens share its limit; another organization's go on unaffected", async () => {
    const org = await organization();
    const tokens = [org.token, await memberOf(org), await memberOf(org)];
    // Three tokens of ten each, but the organization holds sixteen (less its setup's own requests).
    const replies = await burst(24, async () => api.get('/org/v1/requests', tokens[Math.floor(Math.random() * 3)]));
    const ok = replies.filter((r) => r.status === 200).length;
    expect(ok, statuses(replies).join(',')).to.be.within(10, 16);
    expect(replies.filter((r) => r.status !== 200).map(problem)[0]).to.deep.equal({ status: 429, code: 'rate_limited' });

    const other = await organization();
    expect(statuses(await burst(5, () => api.get('/org/v1/requests', other.token)))).to.deep.equal([200, 200, 200, 200, 200]);
  });
});

describe(`fair use: one client floods, another keeps its latency (R-LIM-12; ${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;

  before(async () => {
    service = await startTestService({
      domain: {
        mailer,
        env: {
          RATE_LIMIT_TOKEN_PER_SECOND: '50',
          RATE_LIMIT_TOKEN_BURST: '50',
          RATE_LIMIT_ORG_PER_SECOND: '200',
          RATE_LIMIT_ORG_BURST: '200',
        },
      },
    });
    api = orgClient(service.url, mailer);
  });
  after(() => service.close());

  const token = async () => {
    const owner = await api.user();
    return api.signIn(owner.token, await api.organization(owner.token));
  };
  const p99 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.ceil(ms.length * 0.99) - 1]!;

  /** A well-behaved client: a request every 40 ms (half its limit) for `ms`; the latency of each (all must answer 200). */
  async function steadyClient(bearer: string, ms: number): Promise<number[]> {
    const latencies: number[] = [];
    const end = performance.now() + ms;
    while (performance.now() < end) {
      const t0 = performance.now();
      const r = await api.get('/org/v1/requests', bearer);
      latencies.push(performance.now() - t0);
      expect(r.status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 40 - (performance.now() - t0))));
    }
    return latencies;
  }

  it("a person publishing from 4 connections as fast as they go (a process of its own) gets their rate and 429 past it, while another organization's client keeps its p99", async () => {
    const [flooder, steady] = [await api.user(), await token()];
    const created = await api.post('/graphql', flooder.token, {
      query: 'mutation($i: DocumentInput!) { user { document { create(input: $i) { id } } } }',
      variables: { i: { name: 'Name', schemaRef: PERSON_FULL_NAME, data: { givenName: 'Flood', familyName: 'Test' } } },
    });
    const documentId = (created.body as { data: { user: { document: { create: { id: string } } } } }).data.user.document.create.id;
    const publish = JSON.stringify({
      query: 'mutation($id: ID!, $i: DocumentUpdateInput!) { user { document { update(id: $id, input: $i) { version } } } }',
      variables: { id: documentId, i: { data: { givenName: 'Flood', familyName: 'Again' } } },
    });
    const quiet = await steadyClient(steady, 4000);

    // The flood runs in a process of its own, as a real client would: in this one it would take the
    // event loop from the server it floods and measure itself. Each publish it is let through is a
    // real command (a sealed version appended); past its rate it costs the service a signature check.
    const flood = spawn(
      process.execPath,
      [
        AUTOCANNON,
        ...['-j', '-c', '4', '-d', '5', '-m', 'POST', '-b', publish],
        ...['-H', `authorization=Bearer ${flooder.token}`, '-H', 'content-type=application/json', `${service.url}/graphql`],
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let report = '';
    flood.stdout.on('data', (chunk: Buffer) => void (report += chunk.toString('utf8')));
    const done = once(flood, 'exit');
    await new Promise((r) => setTimeout(r, 300));
    const loaded = await steadyClient(steady, 4000);
    await done;
    const result = JSON.parse(report) as { '2xx': number; non2xx: number; errors: number; duration: number };

    // The flooder got its burst and its rate, no more; everything past them was refused.
    const note = `${result['2xx']} served, ${result.non2xx} refused in ${result.duration.toFixed(1)} s`;
    expect(result['2xx'], note).to.be.at.most(50 + 50 * result.duration + 5);
    expect(result.non2xx, note).to.be.greaterThan(result['2xx']);
    expect(result.errors, note).to.equal(0);
    const bound = 4 * p99(quiet) + 40;
    expect(p99(loaded), `quiet p99 ${p99(quiet).toFixed(1)} ms, flooded ${p99(loaded).toFixed(1)} ms; ${note}`).to.be.below(bound);
  });
});
