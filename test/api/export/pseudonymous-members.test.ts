import { expect } from 'chai';
import type { CopyWorkers } from '../../../src/workers/copy-workers.js';
import type { JobQueue } from '../../../src/workers/queue/queue.js';
import { openWorkerQueue, startWorkers } from '../../support/copy-workers.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, type OrgClient } from '../org/org-client.js';
import { consentScenario, MANUAL_NAME_SLOT, type User } from '../support/consent-scenario.js';
import { startTestService, type TestService } from '../support/service.js';
import { readExport, type Line } from './export-reader.js';

type Entry = { position: string; type: string; actor: string; versions: Record<string, unknown> };

const ALL = ['request_read', 'request_manage', 'manifest_manage', 'member_manage'];
const name = (givenName: string) => ({ givenName, familyName: 'Pseudonym' });
/** `member:` and an opaque id: no address, nothing but base64url characters. */
const PSEUDONYM = /^member:[A-Za-z0-9_-]{16,}$/;

describe(`§10.8 the person sees members pseudonymously (R-HIST-03; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let queue: JobQueue;
  let workers: CopyWorkers;
  let calls: ReturnType<typeof consentScenario>;
  /** One person, in two organizations: Acme (members Max and Mia) and Beta (Max). */
  let max: User & { userId: string };
  let mia: User;
  let person: User;
  let acme: { organizationId: string; max: string; mia: string };
  let beta: { organizationId: string; max: string };
  /** Acme's request: sent and kept by Max, corrected by Mia. Beta's: sent and kept by Max. */
  let atAcme: string;
  let atBeta: string;

  const personHistory = async (requestId: string): Promise<Entry[]> =>
    calls.ok(
      await calls.gql(person, 'query($r: ID!) { user { requestHistory(requestId: $r) { position type actor versions } } }', {
        r: requestId,
      }),
    ).user.requestHistory as Entry[];
  const orgHistory = async (requestId: string, token: string): Promise<Entry[]> =>
    (await calls.expectOk(api.get(`/org/v1/requests/${requestId}/history`, token))).history as Entry[];
  const actorOf = (entries: Entry[], type: string) => entries.find((e) => e.type === type)!.actor;

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    queue = await openWorkerQueue(service);
    workers = await startWorkers(service, queue);
    api = orgClient(service.url, mailer);
    let member = '';
    calls = consentScenario(api, () => member);
    const maxUser = await api.user();
    max = { ...maxUser, userId: calls.ok(await calls.gql(maxUser, '{ user { me { userId } } }')).user.me.userId as string };
    mia = await api.user();
    person = await api.user();

    const acmeId = await api.organization(max.token, 'Acme');
    const maxAtAcme = await api.signIn(max.token, acmeId);
    expect((await api.put(`/org/v1/members/${mia.email}`, maxAtAcme, { permissions: ALL })).status).to.equal(200);
    acme = { organizationId: acmeId, max: maxAtAcme, mia: await api.signIn(mia.token, acmeId) };
    const betaId = await api.organization(max.token, 'Beta');
    beta = { organizationId: betaId, max: await api.signIn(max.token, betaId) };

    const doc = await calls.createDoc(person, 'PersonFullName', name('Pia'));
    member = acme.max;
    const acmeManifest = (
      await api.post('/org/v1/manifests', acme.max, {
        name: 'KYC',
        purpose: 'To check who you are',
        retention: 'P30D',
        slots: [MANUAL_NAME_SLOT],
      })
    ).body.manifest as { manifestId: string; slots: Array<{ slotId: string }> };
    const acmeSlot = acmeManifest.slots[0]!.slotId;
    atAcme = await calls.connected(acmeManifest.manifestId, person, { [acmeSlot]: [doc] });
    await calls.keep(atAcme, acmeSlot);
    member = acme.mia;
    await calls.correct(atAcme, acmeSlot, { expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('Pía') });

    member = beta.max;
    const betaManifest = (
      await api.post('/org/v1/manifests', beta.max, {
        name: 'KYC',
        purpose: 'To check who you are',
        retention: 'P30D',
        slots: [MANUAL_NAME_SLOT],
      })
    ).body.manifest as { manifestId: string; slots: Array<{ slotId: string }> };
    const betaSlot = betaManifest.slots[0]!.slotId;
    atBeta = await calls.connected(betaManifest.manifestId, person, { [betaSlot]: [doc] });
    await calls.keep(atBeta, betaSlot);
  });
  after(async () => {
    await workers.stop();
    await queue.close();
    await service.close();
  });

  it("user.requestHistory names every member acting on the person's records member:<opaque id>, never an address", async () => {
    for (const requestId of [atAcme, atBeta]) {
      const entries = await personHistory(requestId);
      const members = entries.filter((e) => e.actor.startsWith('member:'));
      expect(members.map((e) => e.type)).to.include.members(['RequestSent', 'CopyKept']);
      for (const e of members) expect(e.actor).to.match(PSEUDONYM);
      const text = JSON.stringify(entries);
      for (const shown of [max.email, mia.email, max.userId]) expect(text).to.not.include(shown);
    }
  });

  it('a member keeps one pseudonym within an organization, and another member there has another', async () => {
    const entries = await personHistory(atAcme);
    const maxAtAcme = actorOf(entries, 'RequestSent');
    expect(maxAtAcme).to.match(PSEUDONYM);
    expect(actorOf(entries, 'CopyKept')).to.equal(maxAtAcme);
    expect(actorOf(entries, 'CopyCorrected')).to.match(PSEUDONYM).and.not.equal(maxAtAcme);
    expect(actorOf(await personHistory(atAcme), 'RequestSent'), 'the same on every read').to.equal(maxAtAcme);
  });

  it('the same member has unrelated pseudonyms in two organizations', async () => {
    const atAcmeName = actorOf(await personHistory(atAcme), 'RequestSent');
    const atBetaName = actorOf(await personHistory(atBeta), 'RequestSent');
    expect(atAcmeName).to.match(PSEUDONYM);
    expect(atBetaName).to.match(PSEUDONYM).and.not.equal(atAcmeName);
  });

  it('the export names each member as user.requestHistory does', async () => {
    const res = await fetch(`${service.url}/vault/export`, { headers: { authorization: `Bearer ${person.token}` } });
    expect(res.status).to.equal(200);
    const lines: Line[] = await readExport(res.body!);
    for (const requestId of [atAcme, atBeta]) {
      const shown = new Map((await personHistory(requestId)).map((e) => [e.position, e.actor]));
      const exported = lines.find((l) => l.kind === 'history' && l.requestId === requestId)!.entries as Entry[];
      expect(exported.map((e) => e.type)).to.include('CopyKept');
      for (const e of exported) expect(e.actor, e.type).to.equal(shown.get(e.position));
      expect(exported.filter((e) => e.actor.startsWith('member:')).length).to.be.greaterThan(0);
    }
    const text = JSON.stringify(lines);
    for (const address of [max.email, mia.email]) expect(text).to.not.include(address);
  });

  it("the organization's own history keeps member:<email>", async () => {
    const entries = await orgHistory(atAcme, acme.max);
    expect(actorOf(entries, 'RequestSent')).to.equal(`member:${max.email}`);
    expect(actorOf(entries, 'CopyCorrected')).to.equal(`member:${mia.email}`);
  });
});
