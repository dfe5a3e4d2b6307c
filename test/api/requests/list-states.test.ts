import { expect } from 'chai';
import { REQUEST_STATES } from '../../../src/requests/request-status.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer, TestClock } from '../../support/recording-mailer.js';
import { orgClient, problem, type OrgClient } from '../org/org-client.js';
import { driver, MANUAL_NAME_SLOT, type Manifest, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';

type Summary = { requestId: string; recipientEmail: string; state: string };
type Listed = { requests: Summary[]; nextCursor: string | null };

const HOUR = 3_600_000;
const BOB = 'bob@example.com';

describe(`R-REQ-32 GET /org/v1/requests?state=: the list in some states, read at the service's clock (${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  const clock = new TestClock(Date.now());
  let service: TestService;
  let api: OrgClient;
  let member: string;
  let ann: User;
  let manifest: Manifest;
  /** Request ids by the state they were brought to, in the order sent. */
  const made: Record<string, string[]> = {};
  let lapsing: string;
  let atTheEdge: string;
  const d = driver({ api: () => api, member: () => member });

  const list = async (query: string): Promise<Listed> => (await d.expectOk(api.get(`/org/v1/requests${query}`, member))) as Listed;
  const idsOf = (requests: readonly Summary[]) => requests.map((r) => r.requestId);
  const newestFirst = (ids: readonly string[]) => [...ids].reverse();
  /** Every request as the unfiltered list reads it now: what a filter must agree with. */
  const everything = async () => (await list('?limit=500')).requests;
  const note = (state: string, requestId: string) => (made[state] ??= []).push(requestId);
  /** Every page of a query from the first, following each page's cursor (at most 50 pages). */
  async function allPages(query: string): Promise<Listed[]> {
    const pages = [await list(query)];
    for (let cursor = pages[0]!.nextCursor; cursor !== null && pages.length < 50; cursor = pages.at(-1)!.nextCursor)
      pages.push(await list(`${query}&cursor=${encodeURIComponent(cursor)}`));
    return pages;
  }

  before(async () => {
    service = await startTestService({ domain: { mailer, now: clock.now } });
    api = orgClient(service.url, mailer);
    const owner = await api.user();
    member = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    // An hour's retention: the last test moves the clock past it.
    manifest = await d.manifest([MANUAL_NAME_SLOT], 'PT1H');
    ann = await api.user();
    const nameDoc = await d.createDoc(ann, 'PersonFullName', { givenName: 'Ann', familyName: 'Example' });
    const connected = () => d.connected(manifest.manifestId, ann, { [manifest.slots[0]!.slotId]: [nameDoc] });
    const sendUntil = async (to: string, window: number) => {
      const r = await api.post('/org/v1/requests', member, {
        manifestId: manifest.manifestId,
        recipientEmail: to,
        invitationExpiresAt: new Date(clock.now().getTime() + window).toISOString(),
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return (r.body.request as Summary).requestId;
    };

    // Pending requests, with the other states sent in between, so a filtered page skips over them.
    for (let i = 0; i < 13; i++) {
      note('pending', await d.send(manifest.manifestId, i % 3 === 0 ? BOB : `r${i}@example.com`));
      if (i === 2) for (let j = 0; j < 3; j++) note('active', await connected());
      if (i === 5) {
        const suspended = await connected();
        await d.suspend(ann, suspended);
        note('suspended', suspended);
        const revoked = await connected();
        await d.revoke(ann, revoked);
        note('revoked', revoked);
      }
      if (i === 8) {
        const rejected = await d.send(manifest.manifestId, ann.email);
        d.ok(await d.gql(ann, 'mutation($r: ID!) { user { request { reject(requestId: $r) { requestId } } } }', { r: rejected }));
        note('rejected_by_recipient', rejected);
        const cancelled = await d.send(manifest.manifestId, BOB);
        await d.expectOk(api.post(`/org/v1/requests/${cancelled}/cancel`, member));
        note('rejected_by_sender', cancelled);
      }
    }
    // One window a second long, one two: a second on, the first has passed and the second has a second left.
    lapsing = await sendUntil(BOB, 1000);
    atTheEdge = await sendUntil('edge@example.com', 2000);
    clock.advance(1000);
  });
  after(() => service?.close());

  it('state=active answers only the active connections, newest first', async () => {
    const page = await list('?state=active');
    expect(idsOf(page.requests)).to.deep.equal(newestFirst(made.active!));
    expect(page.requests.map((r) => r.state)).to.deep.equal(['active', 'active', 'active']);
    expect(page.nextCursor).to.equal(null);
  });

  it('state=active,suspended answers the requests in either state, newest first, each once', async () => {
    const all = await everything();
    const either = idsOf(all.filter((r) => r.state === 'active' || r.state === 'suspended'));
    expect(either).to.have.members([...made.active!, ...made.suspended!]);
    expect(idsOf((await list('?state=active,suspended')).requests)).to.deep.equal(either);
    expect(idsOf((await list('?state=suspended,active,suspended')).requests)).to.deep.equal(either);
  });

  it('each state answers exactly the requests the unfiltered list shows in that state', async () => {
    const all = await everything();
    for (const state of REQUEST_STATES) {
      const expected = idsOf(all.filter((r) => r.state === state));
      expect(idsOf((await list(`?state=${state}&limit=500`)).requests), state).to.deep.equal(expected);
    }
    expect(idsOf(all.filter((r) => r.state === 'revoked'))).to.deep.equal(made.revoked);
  });

  it('a filtered list pages with its cursor: state=pending&limit=4 walks every pending request once, newest first', async () => {
    const pending = newestFirst([...made.pending!, atTheEdge]);
    const pages = await allPages('?state=pending&limit=4');
    expect(pages.map((p) => p.requests.length)).to.deep.equal([4, 4, 4, 2]);
    expect(pages.flatMap((p) => idsOf(p.requests))).to.deep.equal(pending);
    expect(pages.every((p) => p.requests.every((r) => r.state === 'pending'))).to.equal(true);
    expect(pages.at(-1)!.nextCursor).to.equal(null);
  });

  it('combined with email: only the requests to that address in those states, paged the same way', async () => {
    const all = await everything();
    const bobs = (...states: string[]) => idsOf(all.filter((r) => r.recipientEmail === BOB && states.includes(r.state)));
    const toBob = `email=${encodeURIComponent(BOB.toUpperCase())}`;
    const pages = await allPages(`?${toBob}&state=pending&limit=2`);
    expect(pages.map((p) => p.requests.length)).to.deep.equal([2, 2, 1]);
    expect(pages.flatMap((p) => idsOf(p.requests))).to.deep.equal(bobs('pending'));
    expect(bobs('pending')).to.have.length(5);
    expect(idsOf((await list(`?${toBob}&state=rejected_by_sender,expired`)).requests)).to.deep.equal([
      lapsing,
      ...made.rejected_by_sender!,
    ]);
    expect((await list(`?${toBob}&state=active`)).requests).to.deep.equal([]);
  });

  it('expired and pending at the clock: past its window an invitation lists as expired, not pending, from the instant the window ends', async () => {
    const stateOf = async (query: string) => idsOf((await list(`?state=${query}&limit=500`)).requests);
    expect(await stateOf('expired')).to.deep.equal([lapsing]);
    expect(await stateOf('pending'))
      .to.include(atTheEdge)
      .and.not.include(lapsing);
    clock.advance(1000);
    expect(await stateOf('expired')).to.deep.equal([atTheEdge, lapsing]);
    expect(await stateOf('pending')).to.not.include(atTheEdge);
    const [edge] = (await list('?email=edge%40example.com')).requests;
    expect(edge!.state).to.equal('expired');
  });

  it('past the accepted retention, an active or suspended connection lists as expired; a revoked one stays revoked', async () => {
    clock.advance(HOUR);
    expect((await list('?state=active,suspended')).requests).to.deep.equal([]);
    const expired = await list('?state=expired&limit=500');
    expect(idsOf(expired.requests)).to.include.members([...made.active!, ...made.suspended!, lapsing, atTheEdge]);
    expect(expired.requests.every((r) => r.state === 'expired')).to.equal(true);
    expect(idsOf((await list('?state=revoked')).requests)).to.deep.equal(made.revoked);
  });

  for (const query of [
    '?state=bogus',
    '?state=active,bogus',
    '?state=',
    '?state=active,',
    '?state=Active',
    '?state=active&state=revoked',
  ]) {
    it(`GET /org/v1/requests${query} answers 400 invalid_request naming the states it takes`, async () => {
      const r = await api.get(`/org/v1/requests${query}`, member);
      expect(problem(r)).to.deep.equal({ status: 400, code: 'invalid_request' });
      expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
      for (const state of REQUEST_STATES) expect(r.body.detail).to.contain(state);
    });
  }
});
