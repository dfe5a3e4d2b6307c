import { expect } from 'chai';
import type { CopyWorkers } from '../../../src/workers/copy-workers.js';
import type { JobQueue } from '../../../src/workers/queue/queue.js';
import { openWorkerQueue, startWorkers } from '../../support/copy-workers.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, problem, type OrgClient } from '../org/org-client.js';
import { consentScenario, MANUAL_NAME_SLOT, type User } from '../support/consent-scenario.js';
import { startTestService, type TestService } from '../support/service.js';

type Entry = { position: string; type: string; occurredAt: string; actor: string; versions: Record<string, unknown> };

const MARKER = 'Zebedee-history-marker';
const name = (givenName: string) => ({ givenName, familyName: MARKER });

describe(`audit history of a request: REST and GraphQL (contract 9, R-HIST-01, R-HIST-02; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let queue: JobQueue;
  let workers: CopyWorkers;
  let owner: User;
  let token: string;
  let ann: User;
  let manifest: { manifestId: string; slots: Array<{ slotId: string }> };

  let calls: ReturnType<typeof consentScenario>;
  const history = async (requestId: string, as = token) => {
    const r = await api.get(`/org/v1/requests/${requestId}/history`, as);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body.history as Entry[];
  };
  const personHistory = (u: User, requestId: string) =>
    calls.gql(u, 'query($r: ID!) { user { requestHistory(requestId: $r) { position type occurredAt actor versions } } }', { r: requestId });
  before(async () => {
    service = await startTestService({ domain: { mailer } });
    queue = await openWorkerQueue(service);
    workers = await startWorkers(service, queue);
    api = orgClient(service.url, mailer);
    calls = consentScenario(api, () => token);
    owner = await api.user();
    const orgId = await api.organization(owner.token, 'Acme');
    token = await api.signIn(owner.token, orgId);
    const m = await api.post('/org/v1/manifests', token, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [MANUAL_NAME_SLOT],
    });
    manifest = m.body.manifest as typeof manifest;
    ann = await api.user();
  });
  after(async () => {
    await workers.stop();
    await queue.close();
    await service.close();
  });

  /** Every command of the scenario, by the member, the recipient and the reactors; answers the request id and the document. */
  async function scenario(): Promise<{ requestId: string; doc: string }> {
    const doc = await calls.createDoc(ann, 'PersonFullName', name('Ann'));
    const slotId = manifest.slots[0]!.slotId;
    const requestId = await calls.connected(manifest.manifestId, ann, { [slotId]: [doc] });
    await calls.keep(requestId, slotId);
    await calls.correct(requestId, slotId, { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('Anna') });
    await calls.updateDoc(ann, doc, name('Ann 2'));
    await calls.readAndAdoptProposal(requestId);
    calls.ok(await calls.gql(ann, 'mutation($r: ID!) { user { request { suspend(requestId: $r) { requestId } } } }', { r: requestId }));
    return { requestId, doc };
  }

  it('every command of a scripted scenario appears once, in log order, with its actor and versions', async () => {
    const { requestId, doc } = await scenario();
    const entries = await history(requestId);
    const member = `member:${owner.email}`;
    expect(entries.map((e) => [e.type, e.actor])).to.deep.equal([
      ['RequestSent', member],
      ['RequestAccepted', 'recipient'],
      ['SlotGranted', 'recipient'],
      ['CopyKept', member],
      ['CopyCorrected', member],
      ['ProposalOpened', 'system'],
      ['ReceiptWritten', member],
      ['CopyKept', member],
      ['ProposalClosed', member],
      ['RequestSuspended', 'recipient'],
    ]);
    const slotId = manifest.slots[0]!.slotId;
    expect(entries[0]!.versions).to.deep.equal({ manifestVersion: 1 });
    expect(entries[3]!.versions).to.deep.include({ slotId, resourceId: doc, sourceVersion: 1, orgVersion: 1 });
    expect(entries[4]!.versions).to.deep.include({ slotId, resourceId: doc, orgVersion: 2 });
    expect(entries[5]!.versions).to.deep.include({ slotId, resourceId: doc, newVersion: 2 });
    expect(entries[6]!.versions).to.deep.include({ resourceId: doc, sourceVersion: 2 });
    expect(entries[7]!.versions).to.deep.include({ sourceVersion: 2, orgVersion: 3 });
    expect(entries[8]!.versions).to.deep.include({ reason: 'adopted' });
    // Oldest first by log position, and each time an ISO instant.
    const positions = entries.map((e) => e.position.split('/').map(BigInt) as [bigint, bigint]);
    for (let i = 1; i < positions.length; i++) {
      const [a, b] = [positions[i - 1]!, positions[i]!];
      expect(a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]), `${entries[i - 1]!.position} before ${entries[i]!.position}`).to.equal(true);
    }
    for (const e of entries) expect(new Date(e.occurredAt).toISOString()).to.equal(e.occurredAt);
  });

  it('carries no personal data in clear: neither the recipient address nor the document content', async () => {
    const { requestId } = await scenario();
    const text = JSON.stringify(await history(requestId));
    expect(text).to.not.include(ann.email);
    expect(text).to.not.include(MARKER);
  });

  it('the person reads the same entries through user.requestHistory, members by pseudonym; another person and another organization find nothing', async () => {
    const { requestId } = await scenario();
    const theirs = await history(requestId);
    const mine = calls.ok(await personHistory(ann, requestId)).user.requestHistory as Entry[];
    // R-HIST-03: the member is shown by a pseudonym, never by address; everything else is the same.
    const pseudonym = mine.find((e) => e.actor.startsWith('member:'))!.actor;
    expect(pseudonym).to.not.include(owner.email);
    expect(mine).to.deep.equal(theirs.map((e) => (e.actor === `member:${owner.email}` ? { ...e, actor: pseudonym } : e)));

    const bob = await api.user();
    const bobs = await personHistory(bob, requestId);
    expect(bobs.errors?.[0]?.extensions?.code).to.equal('NOT_FOUND');

    const other = await api.user();
    const otherToken = await api.signIn(other.token, await api.organization(other.token, 'Other'));
    expect(problem(await api.get(`/org/v1/requests/${requestId}/history`, otherToken))).to.deep.equal({ status: 404, code: 'not_found' });
    expect(problem(await api.get('/org/v1/requests/not-a-uuid/history', token))).to.deep.equal({ status: 404, code: 'not_found' });
  });
});
