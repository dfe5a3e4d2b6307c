import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, type OrgClient } from '../org/org-client.js';
import { startTestService, type TestService } from '../support/service.js';
import { feedCaughtUp } from './caught-up.js';

type FeedPage = { events: Array<{ type: string }>; nextCursor: string | null };

describe(`R-FEED-04 a page filtered by type looks through 10,000 events at most, its cursor moving past them (${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let token: string;

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    const owner = await api.user();
    const organizationId = await api.organization(owner.token, 'Acme');
    token = await api.signIn(owner.token, organizationId);
    await feedCaughtUp(service);
    // 10,001 events after the sign-in's key.warmed, the last a key.sealed: written as the read model holds them, far past the log's
    // head, since appending that many through the API would take the suite minutes.
    await service.db.query(
      `INSERT INTO rm.events_feed (commit_pos, prepare_pos, ordinal, source_event_id, type, organization_id, occurred_at)
       SELECT 1000000000000000 + i, 0, 0, gen_random_uuid(), CASE WHEN i = 10001 THEN 'key.sealed' ELSE 'key.warmed' END, $1, now()
       FROM generate_series(1, 10001) i`,
      [organizationId],
    );
  });
  after(() => service.close());

  const read = async (query: string): Promise<FeedPage> => {
    const r = await api.get(`/org/v1/events${query}`, token);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body as FeedPage;
  };

  it('the first page of a rare type is empty with a cursor past 10,000 events; the next finds it; then the cursor stands', async () => {
    const first = await read('?types=key.sealed');
    expect(first.events).to.deep.equal([]);
    expect(first.nextCursor).to.be.a('string');
    const second = await read(`?types=key.sealed&after=${encodeURIComponent(first.nextCursor!)}`);
    expect(second.events.map((e) => e.type)).to.deep.equal(['key.sealed']);
    const third = await read(`?types=key.sealed&after=${encodeURIComponent(second.nextCursor!)}`);
    expect(third).to.deep.equal({ events: [], nextCursor: second.nextCursor });
    // Unfiltered, the same cursor is the 10,000th event's: 2 more follow it.
    expect((await read(`?limit=1000&after=${encodeURIComponent(first.nextCursor!)}`)).events).to.have.length(2);
  });
});
