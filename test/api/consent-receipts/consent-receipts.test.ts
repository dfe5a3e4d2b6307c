import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { verifyReceipts } from '@dss/sdk';
import { consentReceiptStream } from '../../../src/events/consent-receipt-events.js';
import { requestStream } from '../../../src/events/request-events.js';
import { generateMasterKey, generatePrivateJwk, serializeJwkSet } from '../../../src/identity/keys/index.js';
import { createLogger } from '../../../src/logger.js';
import { allProjectors, replay } from '../../../src/projections/index.js';
import { SqlEventStore } from '../../../src/events/sql/sql-event-store.js';
import { startConsentReceiptWorkers } from '../../../src/workers/consent-receipt-workers.js';
import type { Workers } from '../../../src/workers/reactor-runner.js';
import { orgClient, type OrgClient } from '../org/org-client.js';
import { driver, MANUAL_NAME_SLOT, type Driver, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';

const TRANSITIONS = [
  'RequestAccepted',
  'SlotGranted',
  'SlotWithdrawn',
  'RequestSuspended',
  'RequestResumed',
  'RequestRevoked',
  'RequestRejected',
];
const quiet = createLogger('fatal', { write: () => undefined });
const SECOND_SLOT = { ...MANUAL_NAME_SLOT, label: 'Your name at birth' };

type Receipts = { issuer: string; requestId: string; receipts: Array<{ seq: number; event: string; status: string; jws: string }> };

describe(`signed consent receipts: one per consent transition, chained, verifiable offline (contract §14; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  const env = { BASE_URL: 'http://service.test' };
  let t: TestDatabase;
  let keys: Record<string, string>;
  let service: TestService;
  let workers: Workers;
  let api: OrgClient;
  let d: Driver;
  let member: string;
  let ann: User;
  let manifestId: string;
  let first: string;
  let second: string;
  let passport: string;
  let birth: string;

  /** The receipt reactor of the running service, polling often: the one way the suite starts it. */
  const receiptReactor = (): Promise<Workers> =>
    startConsentReceiptWorkers({
      db: service.db,
      store: service.store,
      receipts: service.domain!.consentReceipts,
      logger: quiet,
      reactorPollMs: 20,
    });

  /** The service on the suite's database with its receipt reactor, at a receipt key generation. */
  async function start(generation: number) {
    service = await startTestService({
      database: t,
      domain: { mailer, env: { ...env, ...keys, RECEIPT_KEY_GENERATION: String(generation) } },
    });
    workers = await receiptReactor();
    api = orgClient(service.url, mailer);
  }

  before(async () => {
    t = await openTestDatabase();
    keys = { JWT_PRIVATE_KEY: serializeJwkSet([await generatePrivateJwk()]), MASTER_KEY: generateMasterKey().toString('base64') };
    await start(1);
    const owner = await api.user();
    member = await api.signIn(owner.token, await api.organization(owner.token, 'Acme Bank'));
    d = driver({ api: () => api, member: () => member });
    const manifest = await d.manifest([MANUAL_NAME_SLOT, SECOND_SLOT], 'P90D');
    manifestId = manifest.manifestId;
    [first, second] = manifest.slots.map((slot) => slot.slotId) as [string, string];
    ann = await api.user();
    passport = await d.createDoc(ann, {
      name: 'Passport name',
      schemaRef: 'http://service.test/schemas/core/PersonFullName.json',
      data: { givenName: 'Annabel', familyName: 'Quist' },
    });
    birth = await d.createDoc(ann, {
      name: 'Birth name',
      schemaRef: 'http://service.test/schemas/core/PersonFullName.json',
      data: { givenName: 'Annabel', familyName: 'Vermeer' },
    });
  });
  after(async () => {
    await workers?.stop();
    await service?.close();
    await t?.drop();
  });

  const orgReceipts = async (requestId: string): Promise<Receipts> => {
    const r = await api.get(`/org/v1/requests/${requestId}/receipts`, member);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body as unknown as Receipts;
  };
  const personReceipts = async (requestId: string): Promise<Receipts> => {
    const r = await graphql(
      ann,
      `
        query ($r: ID!) {
          user {
            consentReceipts(requestId: $r) {
              issuer
              requestId
              receipts {
                seq
                receiptId
                issuedAt
                event
                status
                jws
              }
            }
          }
        }
      `,
      { r: requestId },
    );
    return (r.data as { user: { consentReceipts: Receipts } }).user.consentReceipts;
  };
  /** The request's consent transitions in the log, in order. */
  const transitionsOf = async (requestId: string) =>
    (await service.store.readStream(requestStream(requestId).id)).filter((e) => TRANSITIONS.includes(e.type)).map((e) => e.type);
  /** Waits until the request has `count` receipts. */
  async function receiptsOnceThere(requestId: string, count: number): Promise<Receipts> {
    for (let i = 0; i < 200; i++) {
      const got = await orgReceipts(requestId);
      if (got.receipts.length >= count) return got;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`request ${requestId} did not get ${count} receipts`);
  }
  /** A GraphQL call of the person's that must not fail. */
  const graphql = async (u: User, query: string, variables: Record<string, unknown>) => {
    const r = await api.post('/graphql', u.token, { query, variables });
    expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined);
    return r.body as { data: unknown };
  };
  const jwks = async () => (await (await fetch(`${service.url}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };

  it('R-CREC-02 each transition (accept, grant, withdraw, suspend, resume, revoke) issues exactly one receipt, in the log’s order, the chain verifies', async () => {
    const requestId = await d.send(manifestId, ann.email);
    await d.accept(ann, requestId, { [first]: [passport] });
    await graphql(ann, 'mutation($r: ID!, $g: GrantInput!) { user { request { grant(requestId: $r, grant: $g) { requestId } } } }', {
      r: requestId,
      g: { slotId: second, resourceIds: [birth] },
    });
    await d.withdraw(ann, requestId, first);
    await d.suspend(ann, requestId);
    await d.resume(ann, requestId);
    await d.revoke(ann, requestId);
    const transitions = await transitionsOf(requestId);
    expect(transitions).to.deep.equal([
      'RequestAccepted',
      'SlotGranted',
      'SlotGranted',
      'SlotWithdrawn',
      'RequestSuspended',
      'RequestResumed',
      'RequestRevoked',
    ]);
    const got = await receiptsOnceThere(requestId, transitions.length);
    expect(got.receipts.map((r) => r.event)).to.deep.equal(transitions);
    expect(got.receipts.map((r) => r.seq)).to.deep.equal(transitions.map((_, i) => i + 1));
    expect(got.receipts.map((r) => r.status)).to.deep.equal([
      'dpv:ConsentGiven',
      'dpv:ConsentGiven',
      'dpv:ConsentGiven',
      'dpv:ConsentGiven',
      'dss:ConsentSuspended',
      'dpv:RenewedConsentGiven',
      'dpv:ConsentWithdrawn',
    ]);
    const verdict = await verifyReceipts(
      got.receipts.map((r) => r.jws),
      await jwks(),
    );
    expect(verdict, JSON.stringify(verdict)).to.include({ ok: true, count: transitions.length });
  });

  it('R-CREC-01 a receipt says what was consented to, after ISO/IEC TS 27560 with DPV terms, and holds no address, name or document content', async () => {
    const requestId = await d.send(manifestId, ann.email);
    await d.accept(ann, requestId, { [first]: [passport] });
    const [, granted] = (await receiptsOnceThere(requestId, 2)).receipts;
    const payload = decodeJwt(granted!.jws);
    expect(payload).to.deep.include({
      iss: 'http://service.test',
      request: requestId,
      seq: 2,
      status: 'dpv:ConsentGiven',
      purpose: 'To check who you are',
      retention: 'P90D',
      initiatedBy: 'org',
      app: null,
    });
    expect(payload.controller).to.deep.include({ name: 'Acme Bank' });
    expect(payload.slots).to.deep.equal([
      { id: first, label: MANUAL_NAME_SLOT.label, status: 'dpv:ConsentGiven', records: [sha256(passport)] },
      { id: second, label: SECOND_SLOT.label, status: 'dpv:ConsentRequested', records: [] },
    ]);
    const text = JSON.stringify((await personReceipts(requestId)).receipts.map((r) => decodeJwt(r.jws)));
    for (const personal of [ann.email, 'Annabel', 'Quist', 'Passport name', passport]) expect(text, personal).not.to.include(personal);
  });

  it('R-CREC-03 the person and the organization get the same receipts of a request; another organization gets 404', async () => {
    const requestId = await d.send(manifestId, ann.email);
    await d.accept(ann, requestId, { [first]: [passport] });
    const org = await receiptsOnceThere(requestId, 2);
    expect(await personReceipts(requestId)).to.deep.equal({ ...org, receipts: org.receipts.map((r) => ({ ...r })) });
    const rival = await api.user();
    const rivalMember = await api.signIn(rival.token, await api.organization(rival.token, 'Rival'));
    expect((await api.get(`/org/v1/requests/${requestId}/receipts`, rivalMember)).status).to.equal(404);
  });

  it('R-CREC-02 a rejection issues one; after a crash between the event and its receipt, after the reactor reads the log again, and after a replay, still one each', async () => {
    const rejected = await d.send(manifestId, ann.email);
    await graphql(ann, 'mutation($r: ID!) { user { request { reject(requestId: $r) { requestId } } } }', { r: rejected });
    expect((await receiptsOnceThere(rejected, 1)).receipts.map((r) => r.status)).to.deep.equal(['dpv:ConsentRefused']);

    // Down between the event and its receipt: the event is in the log, no receipt yet.
    await workers.abandon();
    const requestId = await d.send(manifestId, ann.email);
    await d.accept(ann, requestId, { [first]: [passport] });
    expect((await orgReceipts(requestId)).receipts).to.deep.equal([]);
    // Back, and from the very start of the log (a lost checkpoint): every transition once, no more.
    await service.db.query(`DELETE FROM reactors.checkpoints WHERE reactor = 'consent_receipts'`);
    workers = await receiptReactor();
    const got = await receiptsOnceThere(requestId, 2);
    await new Promise((r) => setTimeout(r, 300));
    expect((await orgReceipts(requestId)).receipts.map((r) => r.event)).to.deep.equal(['RequestAccepted', 'SlotGranted']);
    expect((await orgReceipts(rejected)).receipts).to.have.length(1);
    const chain = await service.store.readStream(consentReceiptStream(requestId).id);
    expect(chain.map((e) => e.type)).to.deep.equal(['ConsentReceiptIssued', 'ConsentReceiptIssued']);
    expect(
      (
        await verifyReceipts(
          got.receipts.map((r) => r.jws),
          await jwks(),
        )
      ).ok,
    ).to.equal(true);

    // A replay rebuilds the read models from the log: the same receipts, byte for byte, none issued anew.
    const before = await orgReceipts(requestId);
    await replay({ db: service.db, store: await SqlEventStore.open(service.db), projectors: allProjectors });
    expect(await orgReceipts(requestId)).to.deep.equal(before);
    expect(await service.store.readStream(consentReceiptStream(requestId).id)).to.have.length(2);
  });

  it('R-CREC-04 a rotated key signs the new receipts, and the old ones still verify with the published keys', async () => {
    const requestId = await d.send(manifestId, ann.email);
    await d.accept(ann, requestId, { [first]: [passport] });
    await receiptsOnceThere(requestId, 2);
    await workers.stop();
    await service.close();
    await start(2);
    await d.suspend(ann, requestId);
    const got = await receiptsOnceThere(requestId, 3);
    const kids = got.receipts.map((r) => JSON.parse(Buffer.from(r.jws.split('.')[0]!, 'base64url').toString()).kid as string);
    expect(kids).to.deep.equal(['consent-receipts-1', 'consent-receipts-1', 'consent-receipts-2']);
    const published = await jwks();
    expect(published.keys.map((k) => k.kid)).to.include.members(['consent-receipts-1', 'consent-receipts-2']);
    expect(
      await verifyReceipts(
        got.receipts.map((r) => r.jws),
        published,
      ),
    ).to.include({ ok: true, count: 3 });
  });
});

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
