import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { SqlEventStore } from '../../../src/events/sql/sql-event-store.js';
import { allProjectors, replay } from '../../../src/projections/index.js';
import type { CopyWorkers } from '../../../src/workers/copy-workers.js';
import type { JobQueue } from '../../../src/workers/queue/queue.js';
import { openWorkerQueue, startWorkers } from '../../support/copy-workers.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, problem, type OrgClient } from '../org/org-client.js';
import { driver, schemaRef, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';
import { feedCaughtUp } from './caught-up.js';

type FeedEvent = {
  id: string;
  type: string;
  occurredAt: string;
  organizationId: string;
  requestId?: string;
  slotId?: string;
  resourceId?: string;
  participant?: string;
  adoptionId?: string;
  proposalId?: string;
  versions?: { sourceVersion?: number; orgVersion?: number };
};
type FeedPage = { events: FeedEvent[]; nextCursor: string | null };

/** The person's values that must never reach the feed: distinctive, so a leak cannot hide in an id. */
const GIVEN = 'Quillonia';
const FAMILY = 'Marchbanks-Oyelaran';
const CORRECTED = 'Quillonia-Corrected';
const ENTITY = 'Zephyrine Holdings';
const REGISTRATION = 'HRB 771943';

describe(`R-FEED-* GET /org/v1/events: the organization's events, thin, in log order, resumable for ever (contract §12; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let queue: JobQueue;
  let workers: CopyWorkers;
  let api: OrgClient;
  let owner: { email: string; token: string };
  let token: string;
  let rival: string;
  let ann: User;
  let requestId: string;
  let nameSlot: string;
  let companySlot: string;
  let nameDoc: string;
  let registration: string;
  let proposalId: string;
  /** The whole feed as the flow left it. */
  let flow: FeedEvent[];
  const d = driver({ api: () => api, member: () => token });

  const read = async (query = '', as = token): Promise<FeedPage> => (await d.expectOk(api.get(`/org/v1/events${query}`, as))) as FeedPage;
  /** Every page from `after` on, `limit` at a time, until the cursor stops moving. */
  async function walk(limit: number, after: string | null = null, types = ''): Promise<{ pages: FeedPage[]; events: FeedEvent[] }> {
    const pages: FeedPage[] = [];
    for (let cursor = after; pages.length < 200;) {
      const page = await read(`?limit=${limit}${types}${cursor === null ? '' : `&after=${encodeURIComponent(cursor)}`}`);
      pages.push(page);
      if (page.nextCursor === cursor) break;
      cursor = page.nextCursor;
    }
    return { pages, events: pages.flatMap((p) => p.events) };
  }
  const caughtUp = () => feedCaughtUp(service);
  const types = (events: readonly FeedEvent[]) => events.map((e) => e.type);

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    queue = await openWorkerQueue(service);
    workers = await startWorkers(service, queue);
    api = orgClient(service.url, mailer);
    owner = await api.user();
    token = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    const rivalOwner = await api.user();
    rival = await api.signIn(rivalOwner.token, await api.organization(rivalOwner.token, 'Globex'));

    // The flow: a manifest, a request, the person accepts; keep, correct; she publishes; adopt; she revokes.
    const slot = { group: 'KYC', kind: 'schema', verbs: ['keep'], adoption: 'manual' };
    const manifest = await d.manifest([
      { ...slot, label: 'Name', target: 'PersonFullName', multiple: false },
      { ...slot, label: 'Companies', target: 'LegalEntityRegistration', subject: 'company', multiple: true },
    ]);
    [nameSlot, companySlot] = manifest.slots.map((s) => s.slotId) as [string, string];
    ann = await api.user();
    const entity = await d.entity(ann, ENTITY);
    nameDoc = await d.createDoc(ann, {
      name: 'Name',
      schemaRef: schemaRef('PersonFullName'),
      data: { givenName: GIVEN, familyName: FAMILY },
    });
    registration = await d.createDoc(ann, {
      name: ENTITY,
      owner: entity,
      schemaRef: schemaRef('LegalEntityRegistration'),
      data: { registrationNumber: REGISTRATION, country: 'DE' },
    });
    requestId = await d.connected(manifest.manifestId, ann, { [nameSlot]: [nameDoc], [companySlot]: [registration] });
    await d.kept(requestId, nameSlot);
    const corrected = await d.correct(requestId, nameSlot, {
      expectedSourceVersion: 1,
      expectedOrgVersion: 1,
      data: { givenName: CORRECTED, familyName: FAMILY },
    });
    expect(corrected.status, JSON.stringify(corrected.body)).to.equal(200);
    await d.updateDoc(ann, nameDoc, { givenName: `${GIVEN} II`, familyName: FAMILY });
    proposalId = (await waitForProposal()).proposalId;
    await d.readAndAdoptProposal(requestId);
    await d.revoke(ann, requestId);
    await caughtUp();
    flow = (await walk(1000)).events;
  });
  after(async () => {
    await workers.stop();
    await queue.close();
    await service.close();
  });

  async function waitForProposal() {
    for (let i = 0; i < 200; i++) {
      const [open] = await d.proposals(requestId);
      if (open) return open;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('no proposal opened');
  }

  it('R-FEED-01 the flow reads as the catalogue’s events of the organization, exactly, in log order', () => {
    expect(types(flow)).to.deep.equal([
      'key.warmed',
      'request.sent',
      'request.accepted',
      'slot.granted',
      'slot.granted',
      'copy.kept',
      'copy.corrected',
      'record.updated',
      'proposal.opened',
      'copy.kept',
      'proposal.closed',
      'request.revoked',
    ]);
    const organizationId = flow[0]!.organizationId;
    expect(flow.every((e) => e.organizationId === organizationId)).to.equal(true);
    expect(flow.slice(1).every((e) => e.requestId === requestId)).to.equal(true);
    expect(new Set(flow.map((e) => e.id)).size, 'ids are distinct').to.equal(flow.length);
    for (const e of flow) expect(new Date(e.occurredAt).toISOString(), 'when its source event occurred').to.equal(e.occurredAt);
  });

  it('R-FEED-02 each event names the records, adoptions, proposals and versions it is about; a legal entity’s record by the alias the request detail shows', async () => {
    const detail = (await d.detail(requestId)) as {
      items: Array<{ slotId: string; records: Array<{ participant: { alias: string } | null }> }>;
    };
    const alias = detail.items.find((i) => i.slotId === companySlot)!.records[0]!.participant!.alias;
    const strip = ({ id: _id, occurredAt: _at, organizationId: _org, requestId: _request, ...rest }: FeedEvent) => rest;
    const kept = flow.filter((e) => e.type === 'copy.kept');
    expect(flow.slice(3).map(strip)).to.deep.equal([
      { type: 'slot.granted', slotId: nameSlot, resourceId: nameDoc },
      { type: 'slot.granted', slotId: companySlot, resourceId: registration, participant: alias },
      {
        type: 'copy.kept',
        slotId: nameSlot,
        resourceId: nameDoc,
        adoptionId: kept[0]!.adoptionId,
        versions: { sourceVersion: 1, orgVersion: 1 },
      },
      { type: 'copy.corrected', slotId: nameSlot, resourceId: nameDoc, adoptionId: kept[0]!.adoptionId, versions: { orgVersion: 2 } },
      { type: 'record.updated', slotId: nameSlot, resourceId: nameDoc, versions: { sourceVersion: 2 } },
      { type: 'proposal.opened', slotId: nameSlot, resourceId: nameDoc, proposalId, versions: { sourceVersion: 2 } },
      {
        type: 'copy.kept',
        slotId: nameSlot,
        resourceId: nameDoc,
        adoptionId: kept[1]!.adoptionId,
        versions: { sourceVersion: 2, orgVersion: 3 },
      },
      { type: 'proposal.closed', slotId: nameSlot, resourceId: nameDoc, proposalId },
      { type: 'request.revoked' },
    ]);
    expect(kept[0]!.adoptionId).to.not.equal(kept[1]!.adoptionId);
  });

  it('R-FEED-03 never personal data: no address, no name, no document content anywhere in the feed', () => {
    const text = JSON.stringify(flow);
    for (const secret of [ann.email, owner.email, GIVEN, FAMILY, CORRECTED, ENTITY, REGISTRATION, 'Acme', 'Globex'])
      expect(text, secret).not.to.include(secret);
  });

  it('R-FEED-04 limit=2 walks every event once, in order, each page resuming where the last ended', async () => {
    const { pages, events } = await walk(2);
    expect(events).to.deep.equal(flow);
    expect(pages.slice(0, -1).every((p) => p.events.length === 2)).to.equal(true);
    expect(pages.at(-1)!.events, 'the walk ends on an empty page at the same cursor').to.deep.equal([]);
  });

  it('R-FEED-04 the cursor of the last page reads nothing new until something happens', async () => {
    const page = await read();
    expect(page.events).to.deep.equal(flow);
    const again = await read(`?after=${encodeURIComponent(page.nextCursor!)}`);
    expect(again).to.deep.equal({ events: [], nextCursor: page.nextCursor });
  });

  it('R-FEED-04 without a limit a page holds 100 events; limit=1000 takes them all', async () => {
    const founder = await api.user();
    const organizationId = await api.organization(founder.token, 'Initech');
    // Each sign-in warms the key: 101 events of its own.
    for (let i = 0; i < 101; i++) await api.signIn(founder.token, organizationId);
    const initech = await api.signIn(founder.token, organizationId);
    await caughtUp();
    const first = await read('', initech);
    expect(first.events).to.have.length(100);
    expect((await read(`?after=${encodeURIComponent(first.nextCursor!)}`, initech)).events).to.have.length(2);
    expect((await read('?limit=1000', initech)).events).to.have.length(102);
  });

  it('R-FEED-04 a cursor from earlier still works after more events: it reads on from where it was, old events then new ones', async () => {
    const early = (await read('?limit=3')).nextCursor!;
    const before = await read(`?after=${encodeURIComponent(early)}`);
    expect(before.events).to.deep.equal(flow.slice(3));
    const manifest = await d.manifest([
      { label: 'Name', group: 'KYC', multiple: false, kind: 'schema', target: 'PersonFullName', verbs: ['keep'], adoption: 'manual' },
    ]);
    const again = await d.send(manifest.manifestId, ann.email);
    await caughtUp();
    const after = await read(`?after=${encodeURIComponent(early)}`);
    expect(after.events.slice(0, flow.length - 3)).to.deep.equal(flow.slice(3));
    expect(after.events.slice(flow.length - 3).map((e) => [e.type, e.requestId])).to.deep.equal([['request.sent', again]]);
    expect((await read(`?after=${encodeURIComponent(before.nextCursor!)}`)).events.map((e) => e.requestId)).to.deep.equal([again]);
  });

  it('R-FEED-04 types=a,b answers only events of those types, in order, and pages on with its cursor', async () => {
    const wanted = flow.filter((e) => e.type === 'copy.kept' || e.type === 'request.revoked');
    expect((await read('?types=copy.kept,request.revoked')).events).to.deep.equal(wanted);
    expect((await walk(1, null, '&types=request.revoked,copy.kept')).events).to.deep.equal(wanted);
    expect((await read('?types=copy.deleted')).events).to.deep.equal([]);
  });

  it('R-FEED-05 another organization sees none of them: its feed holds its own events only', async () => {
    const theirs = (await read('?limit=1000', rival)).events;
    expect(types(theirs)).to.deep.equal(['key.warmed']);
    expect(theirs[0]!.organizationId).to.not.equal(flow[0]!.organizationId);
    const ids = new Set(flow.map((e) => e.id));
    expect(theirs.filter((e) => ids.has(e.id))).to.deep.equal([]);
    // A cursor is a place in the log, whoever had it: from one of Acme's, Globex reads its own events only.
    const ours = (await read('?limit=1')).nextCursor!;
    const fromOurs = (await read(`?after=${encodeURIComponent(ours)}`, rival)).events;
    expect(fromOurs.map((e) => e.organizationId)).to.deep.equal([theirs[0]!.organizationId]);
  });

  it('R-FEED-06 an event’s id is the md5, as a UUID, of its source event’s id, its type and the request, slot and resource it names', async () => {
    const named = await service.db.query<{
      source: string;
      type: string;
      request: string | null;
      slot: string | null;
      resource: string | null;
    }>(
      `SELECT source_event_id::text AS source, type, request_id::text AS request, slot_id::text AS slot, resource_id::text AS resource
       FROM rm.events_feed WHERE organization_id = $1 ORDER BY commit_pos, prepare_pos, ordinal`,
      [flow[0]!.organizationId],
    );
    const md5Uuid = (text: string) =>
      createHash('md5')
        .update(text)
        .digest('hex')
        .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    const ids = (await read('?limit=1000')).events.map((e) => e.id);
    expect(ids)
      .to.have.length(named.rows.length)
      .and.length.above(flow.length - 1);
    expect(ids).to.deep.equal(
      named.rows.map((r) => md5Uuid([r.source, r.type, r.request ?? '', r.slot ?? '', r.resource ?? ''].join('/'))),
    );
    expect(new Set(ids).size, 'distinct').to.equal(ids.length);
  });

  it('R-FEED-06 a rebuild of the read models from the log gives the same events, ids and cursors', async () => {
    const cursors = (await walk(2)).pages.map((p) => p.nextCursor);
    await replay({ db: service.db, store: await SqlEventStore.open(service.db), projectors: allProjectors });
    expect((await read('?limit=1000')).events.slice(0, flow.length)).to.deep.equal(flow);
    expect((await walk(2)).pages.map((p) => p.nextCursor)).to.deep.equal(cursors);
  });

  for (const [query, names] of [
    ['?after=not-a-cursor', 'after'],
    [`?after=${Buffer.from('1.2.x').toString('base64url')}`, 'after'],
    ['?after=', 'after'],
    ['?after=a&after=b', 'after'],
    ['?limit=0', 'limit'],
    ['?limit=1001', 'limit'],
    ['?limit=ten', 'limit'],
    ['?types=copy.kept,copy.bought', 'types'],
    ['?types=', 'types'],
    ['?types=copy.kept&types=copy.deleted', 'types'],
    ['?since=1', 'since'],
  ] as const) {
    it(`R-FEED-04 GET /org/v1/events${query} answers 400 invalid_request naming ${names}`, async () => {
      const r = await api.get(`/org/v1/events${query}`, token);
      expect(problem(r)).to.deep.equal({ status: 400, code: 'invalid_request' });
      expect(r.body.detail).to.include(names);
    });
  }

  it('R-FEED-05 a member without request_read is 403 forbidden; no token is 401 unauthenticated', async () => {
    const colleague = await api.user();
    expect((await api.put(`/org/v1/members/${colleague.email}`, token, { permissions: ['manifest_manage'] })).status).to.equal(200);
    const organizationId = flow[0]!.organizationId;
    const theirs = await api.signIn(colleague.token, organizationId);
    expect(problem(await api.get('/org/v1/events', theirs))).to.deep.equal({ status: 403, code: 'forbidden' });
    expect(problem(await api.get('/org/v1/events'))).to.deep.equal({ status: 401, code: 'unauthenticated' });
    // A user token is no member token.
    expect(problem(await api.get('/org/v1/events', ann.token))).to.deep.equal({ status: 401, code: 'unauthenticated' });
  });
});
