import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { mainBackend } from '../support/databases.js';
import type { Reply } from '../support/http.js';
import { TestClock } from '../support/recording-mailer.js';
import { problem, startOrgService, type OrgClient } from './org/org-client.js';
import { appendedSince, logMark } from './support/driver.js';
import type { TestService } from './support/service.js';

const ME = { query: '{ user { me { email } } }' };
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const PERSON_FULL_NAME = 'http://service.test/schemas/core/PersonFullName.json';
const MANIFEST = {
  name: 'KYC',
  purpose: 'To know who our customers are',
  retention: 'P30D',
  slots: [
    { label: 'Name', group: 'Identity', multiple: false, kind: 'schema', target: 'PersonFullName', verbs: ['keep'], adoption: 'manual' },
  ],
};

const statuses = (replies: readonly Reply[]) => replies.map((r) => r.status);
const times = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

/** `n` calls one after another, the i-th made by `call(i)`. */
async function inTurn(n: number, call: (i: number) => Promise<Reply>): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let i = 0; i < n; i++) replies.push(await call(i));
  return replies;
}

/** R-LIM-12: the organization plane and GraphQL, per session and per organization. */
describe(`fair use: rate limits per token and per organization (contract 9; ${mainBackend})`, function () {
  this.timeout(60_000);
  // Stopped unless a test moves it: each bucket then holds exactly its burst, whatever the machine's speed.
  const clock = new TestClock(Date.now());
  let service: TestService;
  let api: OrgClient;

  before(async () => {
    const env = {
      RATE_LIMIT_TOKEN_PER_SECOND: '5',
      RATE_LIMIT_TOKEN_BURST: '10',
      RATE_LIMIT_ORG_PER_SECOND: '5',
      RATE_LIMIT_ORG_BURST: '16',
    };
    ({ service, api } = await startOrgService({ env, now: clock.now }));
  });
  after(() => service.close());

  /** A new organization and its owner's member token (signing in takes the owner's user token). */
  async function organization(): Promise<{ id: string; token: string }> {
    const owner = await api.user();
    const id = await api.organization(owner.token);
    return { id, token: await api.signIn(owner.token, id) };
  }
  /** A new member's token; adding them is one request of `org`'s token. */
  async function memberOf(org: { id: string; token: string }): Promise<string> {
    const user = await api.user();
    expect((await api.put(`/org/v1/members/${user.email}`, org.token, { permissions: ['request_read'] })).status).to.equal(200);
    return api.signIn(user.token, org.id);
  }
  /** Each reply is 429 rate_limited problem+json, asking to wait one second (the next request's room at 5 a second). */
  function expectRateLimited(replies: readonly Reply[]): void {
    expect(replies.map(problem)).to.deep.equal(replies.map(() => ({ status: 429, code: 'rate_limited' })));
    for (const r of replies) {
      expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(r.headers.get('retry-after')).to.equal('1');
    }
  }

  it('past its burst a member token gets 429 rate_limited with Retry-After, writes nothing, and gets through again after waiting that long', async () => {
    const org = await organization();
    const replies = await inTurn(14, () => api.get('/org/v1/requests', org.token));
    expect(statuses(replies)).to.deep.equal([...times(10, 200), ...times(4, 429)]);
    expectRateLimited(replies.slice(10));

    const since = await logMark(service.db);
    const invite = await api.post('/org/v1/requests', org.token, {
      manifestId: '00000000-0000-4000-8000-000000000000',
      recipientEmail: 'x@example.com',
    });
    expectRateLimited([invite]);
    expect(await appendedSince(service.db, since)).to.deep.equal([]);

    // Refused requests took no room: a second later the token has that second's five, and no more.
    clock.advance(Number(invite.headers.get('retry-after')) * 1000);
    expect(statuses(await inTurn(6, () => api.get('/org/v1/requests', org.token)))).to.deep.equal([...times(5, 200), 429]);
  });

  it('GraphQL: past its burst a user token gets 429 problem+json rate_limited with Retry-After, before anything runs', async () => {
    const user = await api.user();
    // Registering (in api.user) was the token's first request of its ten.
    const replies = await inTurn(14, () => api.post('/graphql', user.token, ME));
    expect(statuses(replies)).to.deep.equal([...times(9, 200), ...times(5, 429)]);
    expectRateLimited(replies.slice(9));

    const since = await logMark(service.db);
    const create = await api.post('/graphql', user.token, {
      query: 'mutation($i: DocumentInput!) { user { document { create(input: $i) { id } } } }',
      variables: { i: { name: 'Name', schemaRef: PERSON_FULL_NAME, data: { givenName: 'Not', familyName: 'Written' } } },
    });
    expectRateLimited([create]);
    expect(await appendedSince(service.db, since)).to.deep.equal([]);
  });

  it("an organization's tokens share its limit; another organization's go on unaffected", async () => {
    const org = await organization();
    const tokens = [org.token, await memberOf(org), await memberOf(org)];
    // Each token has room for ten, but the organization for sixteen, two of them taken by adding the members.
    const replies = await inTurn(24, (i) => api.get('/org/v1/requests', tokens[i % 3]));
    expect(statuses(replies)).to.deep.equal([...times(14, 200), ...times(10, 429)]);
    expectRateLimited(replies.slice(14));

    const other = await organization();
    expect(statuses(await inTurn(10, () => api.get('/org/v1/requests', other.token)))).to.deep.equal(times(10, 200));
  });
});

describe(`fair use: one client floods, another keeps its latency (R-LIM-12; ${mainBackend})`, function () {
  this.timeout(60_000);
  let service: TestService;
  let api: OrgClient;
  // The flooder's organization may create 10 manifests a second, with little burst: far below what
  // even a busy test machine serves, so what it is let through cannot crowd the other client out.
  // The other client is a person (a user token has no organization's bucket): 50 a second has room for its 25.
  const [orgPerSecond, orgBurst] = [10, 2];
  // Long enough for a p99 that one stall of a shared machine does not set: over 4 s (100 answers) the
  // p99 was the second-worst answer, and one stall of 184 ms once failed a bound of 179.
  const FLOOD_SECONDS = 10;

  before(async () => {
    ({ service, api } = await startOrgService({
      env: {
        RATE_LIMIT_TOKEN_PER_SECOND: '50',
        RATE_LIMIT_TOKEN_BURST: '50',
        RATE_LIMIT_ORG_PER_SECOND: String(orgPerSecond),
        RATE_LIMIT_ORG_BURST: String(orgBurst),
      },
    }));
  });
  after(() => service.close());

  const p99 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.ceil(ms.length * 0.99) - 1]!;

  /** A well-behaved client: a GraphQL read every 40 ms (half its limit) for `ms`; the latency of each (all must answer 200). */
  async function steadyClient(bearer: string, ms: number): Promise<number[]> {
    const latencies: number[] = [];
    const end = performance.now() + ms;
    while (performance.now() < end) {
      const t0 = performance.now();
      const r = await api.post('/graphql', bearer, ME);
      latencies.push(performance.now() - t0);
      expect(r.status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 40 - (performance.now() - t0))));
    }
    return latencies;
  }

  it("an organization creating manifests from 4 connections as fast as they go (a process of its own) gets its rate and 429 past it, while another person's client keeps its p99", async () => {
    const owner = await api.user();
    const flooder = await api.signIn(owner.token, await api.organization(owner.token));
    const steady = (await api.user()).token;
    await steadyClient(steady, 1000); // unmeasured: the first requests compile code paths and fill caches
    const before = await steadyClient(steady, 3000);

    // The flood runs in a process of its own, as a real client would: in this one it would take the
    // event loop from the server it floods and measure itself. Each manifest it is let through is a
    // real command (events appended); past its rate it costs the service a signature check.
    const flood = spawn(
      process.execPath,
      [
        AUTOCANNON,
        ...['-j', '-c', '4', '-d', String(FLOOD_SECONDS), '-m', 'POST', '-b', JSON.stringify(MANIFEST)],
        ...['-H', `authorization=Bearer ${flooder}`, '-H', 'content-type=application/json', `${service.url}/org/v1/manifests`],
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let report = '';
    flood.stdout.on('data', (chunk: Buffer) => void (report += chunk.toString('utf8')));
    const done = once(flood, 'exit');
    // Measured from the flood's first manifest: on a busy machine autocannon takes a while to start.
    const unflooded = await logMark(service.db);
    while ((await appendedSince(service.db, unflooded)).length === 0 && flood.exitCode === null)
      await new Promise((r) => setTimeout(r, 20));
    const loaded = await steadyClient(steady, (FLOOD_SECONDS - 1) * 1000);
    await done;
    const after = await steadyClient(steady, 3000);
    const result = JSON.parse(report) as { '2xx': number; non2xx: number; errors: number; duration: number; statusCodeStats: object };

    // The flooder got at least half its rate, and no more than its burst and its rate (one more for a
    // request its last second began); everything past them was refused, and nothing else went wrong.
    const note = `${result['2xx']} served, ${result.non2xx} refused in ${result.duration.toFixed(1)} s`;
    expect(result['2xx'], note).to.be.within((orgPerSecond * result.duration) / 2, orgBurst + orgPerSecond * result.duration + 1);
    expect(Object.keys(result.statusCodeStats).sort(), note).to.deep.equal(['201', '429']);
    expect(result.non2xx, note).to.be.greaterThan(result['2xx']);
    expect(result.errors, note).to.equal(0);
    // A refused request still takes the event loop ~0.6 ms and a let-through one a command's time, so
    // the other client may wait behind a few of them; and on two cores, where the flooding process
    // takes one, the server's thread waits for a core now and then: a few scheduler slices, the
    // 100 ms. The quiet p99 is the worse of the windows before and after, as other processes on the
    // machine come and go. Seen at a load of 3 to 6: 8-56 ms quiet, 17-99 ms flooded.
    const quiet = Math.max(p99(before), p99(after));
    const bound = 4 * quiet + 100;
    expect(p99(loaded), `quiet p99 ${quiet.toFixed(1)} ms, flooded ${p99(loaded).toFixed(1)} ms; ${note}`).to.be.below(bound);
  });
});
