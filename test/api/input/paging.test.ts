import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, problem, type OrgClient } from '../org/org-client.js';
import { driver, MANUAL_NAME_SLOT, type Manifest, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';

type Listed = { requests: Array<{ requestId: string; recipientEmail: string }>; nextCursor: string | null };
type Paged = { history: Array<{ position: string; type: string }>; nextAfter: string | null };

describe(`§10.6 paging: the request list and a request's history come a page at a time (${mainBackend})`, function () {
  this.timeout(300_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let member: string;
  let ann: User;
  let manifest: Manifest;
  /** Request ids in the order they were sent: the list shows them the other way round. */
  const sent: string[] = [];
  let toBob: string[];
  const d = driver({ api: () => api, member: () => member });

  const list = async (query: string): Promise<Listed> => (await d.expectOk(api.get(`/org/v1/requests${query}`, member))) as Listed;
  const history = async (requestId: string, query: string): Promise<Paged> =>
    (await d.expectOk(api.get(`/org/v1/requests/${requestId}/history${query}`, member))) as Paged;

  /** Every page from the first, following each page's cursor while it is one (at most 50 pages: a cursor going round fails). */
  async function allPages<P>(read: (from: string | null) => Promise<P>, next: (page: P) => string | null): Promise<P[]> {
    const pages = [await read(null)];
    for (let from = next(pages[0]!); typeof from === 'string' && pages.length < 50; from = next(pages.at(-1)!))
      pages.push(await read(from));
    return pages;
  }

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    const owner = await api.user();
    member = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    manifest = await d.manifest([MANUAL_NAME_SLOT]);
    ann = await api.user();
    for (let i = 0; i < 101; i++) sent.push(await d.send(manifest.manifestId, i % 3 === 0 ? 'bob@example.com' : `r${i}@example.com`));
    toBob = sent.filter((_, i) => i % 3 === 0);
  });
  after(() => service?.close());

  it('GET /org/v1/requests answers a first page of 100, newest first, and a cursor to the rest', async () => {
    const page = await list('');
    expect(page.requests.map((r) => r.requestId)).to.deep.equal([...sent].reverse().slice(0, 100));
    expect(page.nextCursor).to.be.a('string');
  });

  it('following nextCursor with limit=7 walks every request once, newest first, and the last page says null', async () => {
    const pages = await allPages(
      (cursor) => list(`?limit=7${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`),
      (p) => p.nextCursor,
    );
    expect(pages.map((p) => p.requests.length)).to.deep.equal([...Array(14).fill(7), 3]);
    expect(pages.flatMap((p) => p.requests.map((r) => r.requestId))).to.deep.equal([...sent].reverse());
    expect(pages.at(-1)!.nextCursor).to.equal(null);
  });

  it('the email filter pages the same way: only that address, newest first', async () => {
    const pages = await allPages(
      (cursor) => list(`?email=Bob%40Example.com&limit=10${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`),
      (p) => p.nextCursor,
    );
    expect(pages.map((p) => p.requests.length)).to.deep.equal([10, 10, 10, 4]);
    expect(pages.flatMap((p) => p.requests.map((r) => r.requestId))).to.deep.equal([...toBob].reverse());
  });

  it('limit=500 answers all 101 with nextCursor null', async () => {
    const page = await list('?limit=500');
    expect(page.requests).to.have.length(101);
    expect(page.nextCursor).to.equal(null);
  });

  for (const query of ['?limit=0', '?limit=501', '?limit=ten', '?limit=1&limit=2', '?cursor=not-a-cursor', '?cursor=']) {
    it(`GET /org/v1/requests${query} answers 400 invalid_request`, async () => {
      expect(problem(await api.get(`/org/v1/requests${query}`, member))).to.deep.equal({ status: 400, code: 'invalid_request' });
    });
  }

  describe('GET /org/v1/requests/{id}/history', () => {
    let requestId: string;
    let whole: Paged['history'];

    before(async () => {
      const doc = await d.createDoc(ann, 'PersonFullName', { givenName: 'Ann', familyName: 'Example' });
      const slotId = manifest.slots[0]!.slotId;
      requestId = await d.connected(manifest.manifestId, ann, { [slotId]: [doc] });
      await d.kept(requestId, slotId);
      for (const givenName of ['Anna', 'Anne']) {
        const copies = await d.copies(requestId);
        const head = copies[0]!.currentOrgVersion;
        await d.expectOk(
          d.correct(requestId, slotId, { expectedSourceVersion: 1, expectedOrgVersion: head, data: { givenName, familyName: 'Example' } }),
        );
      }
      whole = (await history(requestId, '')).history;
    });

    it('answers every entry oldest first with nextAfter null when they fit the default page', async () => {
      const page = await history(requestId, '');
      expect(page.nextAfter).to.equal(null);
      expect(page.history.map((e) => e.type)).to.include.members(['RequestSent', 'RequestAccepted', 'CopyKept', 'CopyCorrected']);
    });

    it('following nextAfter with limit=2 walks the same entries, oldest first, the last page saying null', async () => {
      expect(whole.length).to.be.at.least(5);
      const pages = await allPages(
        (after) => history(requestId, `?limit=2${after === null ? '' : `&after=${encodeURIComponent(after)}`}`),
        (p) => p.nextAfter,
      );
      expect(pages.slice(0, -1).every((p) => p.history.length === 2)).to.equal(true);
      expect(pages.flatMap((p) => p.history)).to.deep.equal(whole);
      expect(pages.at(-1)!.nextAfter).to.equal(null);
    });

    for (const query of ['?limit=0', '?limit=501', '?after=not-a-position', '?after=']) {
      it(`${query} answers 400 invalid_request`, async () => {
        expect(problem(await api.get(`/org/v1/requests/${requestId}/history${query}`, member))).to.deep.equal({
          status: 400,
          code: 'invalid_request',
        });
      });
    }
  });
});
