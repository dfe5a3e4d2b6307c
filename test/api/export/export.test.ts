import { verifyReceipts, type ReceiptKeys } from '@dss/sdk';
import { expect } from 'chai';
import { createLogger } from '../../../src/logger.js';
import { startConsentReceiptWorkers } from '../../../src/workers/consent-receipt-workers.js';
import type { CopyWorkers } from '../../../src/workers/copy-workers.js';
import type { JobQueue } from '../../../src/workers/queue/queue.js';
import { openWorkerQueue, startWorkers } from '../../support/copy-workers.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { fileClient } from '../files/file-client.js';
import { orgClient, type OrgClient } from '../org/org-client.js';
import { consentScenario, type User } from '../support/consent-scenario.js';
import { startTestService, type TestService } from '../support/service.js';
import type { Workers } from '../../../src/workers/reactor-runner.js';

type Line = Record<string, any> & { kind: string };

const person = (givenName: string, familyName: string) => ({ givenName, familyName });

describe(`export: everything held about the caller, nothing of anyone else (contract 9, R-EXP-01, R-EXP-02; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let offsetMs = 0;
  let service: TestService;
  let api: OrgClient;
  let queue: JobQueue;
  let workers: CopyWorkers;
  let receiptWorkers: Workers;
  let token: string;
  let memberEmail: string;
  let calls: ReturnType<typeof consentScenario>;
  let manifest: { manifestId: string; slots: Array<{ slotId: string }> };

  const download = async (path: string, bearer?: string) => {
    const res = await fetch(`${service.url}${path}`, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
    const text = await res.text();
    const lines = res.ok
      ? text
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l) as Line)
      : [];
    return { status: res.status, headers: res.headers, text, lines, body: res.ok ? {} : (JSON.parse(text) as Record<string, unknown>) };
  };
  const exportLink = async (u: User) => calls.ok(await calls.gql(u, '{ user { export } }')).user.export as string;

  before(async () => {
    service = await startTestService({ domain: { mailer, now: () => new Date(Date.now() + offsetMs) } });
    queue = await openWorkerQueue(service);
    workers = await startWorkers(service, queue);
    // Contract §14: the reactor that issues the consent receipts, as `npm start` runs it.
    receiptWorkers = await startConsentReceiptWorkers({
      db: service.db,
      store: service.store,
      receipts: service.domain!.consentReceipts,
      logger: createLogger('silent'),
      reactorPollMs: 20,
    });
    api = orgClient(service.url, mailer);
    const owner = await api.user();
    memberEmail = owner.email;
    token = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    calls = consentScenario(api, () => token);
    const slot = { group: 'KYC', multiple: false, verbs: ['keep'], adoption: 'manual' };
    const m = await api.post('/org/v1/manifests', token, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [
        { ...slot, kind: 'schema', label: 'Name', target: 'PersonFullName' },
        { ...slot, kind: 'file', label: 'Passport', target: 'PassportScan' },
      ],
    });
    manifest = m.body.manifest as typeof manifest;
  });
  after(async () => {
    await receiptWorkers.stop();
    await workers.stop();
    await queue.close();
    await service.close();
  });

  /**
   * A person's whole life in the service: documents (one updated, one deleted), a file in two
   * versions, an entity, a request kept, corrected, read and adopted.
   */
  async function life(u: User, marker: string) {
    const [nameSlot, fileSlot] = manifest.slots.map((s) => s.slotId) as [string, string];
    const doc = await calls.createDoc(u, 'PersonFullName', person(marker, 'One'));
    await calls.updateDoc(u, doc, person(marker, 'Two'));
    const gone = await calls.createDoc(u, 'PersonFullName', person(marker, 'Deleted'));
    calls.ok(await calls.gql(u, 'mutation($id: ID!) { user { document { delete(id: $id) } } }', { id: gone }));
    const files = fileClient(service.url);
    const fileId = (await files.upload(u.token, { fileName: 'p.pdf', label: 'Passport' }, Buffer.from(`${marker}-file-1`))).json
      .fileId as string;
    expect((await files.addVersion(u.token, fileId, { fileName: 'p2.pdf' }, Buffer.from(`${marker}-file-2`))).status).to.equal(201);
    calls.ok(await calls.gql(u, 'mutation($n: String!) { user { entity { create(name: $n) { entityId } } } }', { n: `${marker} GmbH` }));
    const requestId = await calls.connected(manifest.manifestId, u, { [nameSlot]: [doc], [fileSlot]: [fileId] });
    await calls.keep(requestId, nameSlot);
    await calls.keep(requestId, fileSlot);
    await calls.correct(requestId, nameSlot, { expectedSourceVersion: 2, expectedOrgVersion: 1, data: person(marker, 'Fixed') });
    await calls.updateDoc(u, doc, person(marker, 'Three'));
    await calls.readAndAdoptProposal(requestId);
    return { doc, gone, fileId, requestId };
  }

  it('holds every item of a scripted scenario, as JSON lines ending with a count', async () => {
    const ann = await api.user();
    const { doc, gone, fileId, requestId } = await life(ann, 'Annabel');
    const r = await download('/vault/export', ann.token);
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.match(/^application\/x-ndjson/);
    expect(r.headers.get('content-disposition')).to.match(/^attachment; filename="export-\d{4}-\d{2}-\d{2}\.jsonl"$/);
    const of = (kind: string) => r.lines.filter((l) => l.kind === kind);

    expect(r.lines.at(-1)).to.deep.equal({ kind: 'end', lines: r.lines.length - 1 });
    expect(of('account')[0]!.account.email).to.equal(ann.email);
    expect(of('entity').map((l) => l.entity.name)).to.deep.equal(['Annabel GmbH']);
    const docs = new Map(of('document').map((l) => [l.id as string, l]));
    expect(docs.get(doc)!.versions.map((v: { data: unknown }) => v.data)).to.deep.equal([
      person('Annabel', 'One'),
      person('Annabel', 'Two'),
      person('Annabel', 'Three'),
    ]);
    expect(docs.get(gone)).to.deep.include({ deleted: true });
    const [file] = of('file');
    expect(file!.id).to.equal(fileId);
    expect(file!.versions.map((v: { content: string }) => Buffer.from(v.content, 'base64').toString())).to.deep.equal([
      'Annabel-file-1',
      'Annabel-file-2',
    ]);
    const [request] = of('request');
    expect(request!.request).to.deep.include({ requestId, state: 'active' });
    expect(of('receipt').map((l) => [l.receipt.resourceId, l.receipt.version])).to.deep.equal([[doc, 3]]);
    // The organization's side of the person's records: keeps, the correction, the candidate read.
    const [history] = of('history');
    expect(history!.entries.map((e: { type: string }) => e.type)).to.deep.equal([
      'CopyKept',
      'CopyKept',
      'CopyCorrected',
      'ReceiptWritten',
      'CopyKept',
    ]);
    // Members by pseudonym, as in user.requestHistory (R-HIST-03).
    for (const e of history!.entries as Array<{ actor: string }>) expect(e.actor).to.match(/^member:[A-Za-z0-9_-]{16,}$/);
  });

  it('holds each request’s signed consent receipts, as user.consentReceipts answers them, which verify against the published keys (contract §14)', async () => {
    const ann = await api.user();
    const [nameSlot] = manifest.slots.map((s) => s.slotId) as [string];
    const doc = await calls.createDoc(ann, 'PersonFullName', person('Rita', 'Receipt'));
    const requestId = await calls.connected(manifest.manifestId, ann, { [nameSlot]: [doc] });
    await calls.suspend(ann, requestId);
    const pending = await calls.send(manifest.manifestId, ann.email);
    const RECEIPTS = `query($r: ID!) { user { consentReceipts(requestId: $r) {
      issuer requestId receipts { seq receiptId issuedAt event status jws } } } }`;
    const read = async () => calls.ok(await calls.gql(ann, RECEIPTS, { r: requestId })).user.consentReceipts;
    // The reactor issues them a moment after each transition.
    for (const deadline = Date.now() + 20_000; (await read()).receipts.length < 3;) {
      expect(Date.now(), 'the three receipts are issued').to.be.below(deadline);
      await new Promise((r) => setTimeout(r, 50));
    }
    const r = await download('/vault/export', ann.token);
    expect(r.status).to.equal(200);
    const ofRequest = (id: string) => r.lines.filter((l) => l.kind === 'consentReceipts' && l.requestId === id);
    const [line] = ofRequest(requestId);
    expect(ofRequest(requestId), 'one line per request').to.have.length(1);
    const { issuer, receipts } = await read();
    expect(line).to.deep.equal({ kind: 'consentReceipts', requestId, issuer, receipts });
    expect(line!.receipts.map((x: { event: string }) => x.event)).to.deep.equal(['RequestAccepted', 'SlotGranted', 'RequestSuspended']);
    // A request not yet answered has its line too, with no receipt.
    expect(ofRequest(pending)).to.deep.equal([{ kind: 'consentReceipts', requestId: pending, issuer, receipts: [] }]);
    // Each request's line follows its history line.
    const at = r.lines.indexOf(line!);
    expect(r.lines[at - 1]).to.deep.include({ kind: 'history', requestId });

    const jwks = (await (await fetch(`${service.url}/.well-known/jwks.json`)).json()) as ReceiptKeys;
    const verdict = await verifyReceipts(
      line!.receipts.map((x: { jws: string }) => x.jws),
      jwks,
      { issuer, request: requestId },
    );
    expect(verdict, JSON.stringify(verdict)).to.include({ ok: true, count: 3 });
  });

  it("holds nothing of another person: not their address, documents, files or requests, nor the organization member's address", async () => {
    const ann = await api.user();
    const bob = await api.user();
    await life(ann, 'Annika');
    await life(bob, 'Bartholomew');
    const { text } = await download('/vault/export', ann.token);
    expect(text).to.include('Annika');
    for (const foreign of ['Bartholomew', bob.email, memberEmail]) expect(text).to.not.include(foreign);
  });

  it('user.export answers a one-time URL valid 15 minutes; a revoked session voids it; no token and a bad one are 401', async () => {
    const ann = await api.user();
    await calls.createDoc(ann, 'PersonFullName', person('Linus', 'Link'));
    const url = await exportLink(ann);
    expect(url).to.match(/^http:\/\/service\.test\/vault\/export\?link=[A-Za-z0-9_-]{43}$/);
    const path = url.replace('http://service.test', '');
    const once = await download(path);
    expect(once.status).to.equal(200);
    expect(once.text).to.include('Linus');
    const again = await download(path);
    expect([again.status, again.body.code], 'a link works once').to.deep.equal([401, 'unauthenticated']);

    const late = (await exportLink(ann)).replace('http://service.test', '');
    offsetMs = 15 * 60 * 1000 + 1000;
    try {
      expect((await download(late)).status).to.equal(401);
    } finally {
      offsetMs = 0;
    }

    const revoked = (await exportLink(ann)).replace('http://service.test', '');
    calls.ok(await calls.gql(ann, 'mutation { user { security { revokeAllSessionsIncludingCurrent } } }'));
    expect((await download(revoked)).status).to.equal(401);

    expect((await download('/vault/export')).status).to.equal(401);
    expect((await download('/vault/export?link=nonsense')).status).to.equal(401);
    expect((await download('/vault/export', 'not-a-token')).status).to.equal(401);
  });
});
