import { expect } from 'chai';
import type { EventContext } from '../../../src/events/envelope.js';
import { copyWorkOf, type CopyWorkers } from '../../../src/workers/copy-workers.js';
import type { JobQueue } from '../../../src/workers/queue/queue.js';
import { openWorkerQueue, startWorkers } from '../../support/copy-workers.js';
import { mainBackend } from '../../support/databases.js';
import type { Reply } from '../../support/http.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, problem, type OrgClient } from '../org/org-client.js';
import { driver, schemaRef, type LogMark, type Manifest, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';
import { parseId } from '../../../src/ids.js';

/**
 * Contract §10.1 and §10.2: consent is checked at the moment data moves. Every path that moves a
 * person's record to an organization (keep, automatic keep, drain of a pending keep, proposal
 * candidate and adopt) and correct's version check, each after every way consent can lapse: the
 * named outcome, and nothing moved where it must not be. One `it` per cell of the table.
 */

/** The retention of the manifest the `expired` cells use: the clock is moved past it. */
const SHORT_RETENTION = 'PT10M';
const SHORT_RETENTION_MS = 10 * 60 * 1000;

type Retention = 'long' | 'short';
type Org = { orgId: string; owner: User; token: string; manifests: Record<Retention, Manifest> };
type Adoption = { adoptionId: string; sourceVersion: number; state: string };
type HistoryEntry = { type: string; versions: Record<string, unknown> };
type Proposal = { proposalId: string; newVersion: number };
type Refusal = 'adoption_refused' | 'participant_ineligible';
type Reason = 'connection_inactive' | 'not_granted' | 'participant_ineligible' | 'source_unavailable';

/** One connection of a fresh person, set up for one cell. */
type Cell = {
  readonly org: Org;
  readonly person: User;
  readonly entityId: string | null;
  readonly docId: string;
  readonly requestId: string;
  readonly slotId: string;
  /** The second MANAGER of the entity, once the `participant ineligible` lapse has appointed one. */
  partner: User | null;
};

/** A way consent lapses, and what each path must answer after it. */
type Lapse = {
  readonly name: string;
  /** Whether the cell uses the legal-entity slot (the person answers for a company). */
  readonly party: boolean;
  readonly retention: Retention;
  /** keep, candidate and proposal adopt: the 403's code. */
  readonly refusal: Refusal;
  /** drain: the reason of the AdoptionDiscarded history entry. */
  readonly discarded: Reason;
  /** candidate and proposal adopt: whether the refusal also closes the proposal (withdrawn). */
  readonly closesProposal: boolean;
  readonly apply: (c: Cell) => Promise<void>;
  /** Who can still publish a new version of the record once consent lapsed (the partner: the company's other MANAGER). */
  readonly publisher: 'person' | 'partner' | null;
};

/** Slots of every manifest: manual and automatic, each for the person and for a company the person manages. */
const keepSlot = { group: 'KYC', kind: 'schema', verbs: ['keep'] };
const SLOTS = [
  { ...keepSlot, label: 'Name', target: 'PersonFullName', multiple: false, adoption: 'manual' },
  { ...keepSlot, label: 'Company', target: 'LegalEntityRegistration', subject: 'company', multiple: true, adoption: 'manual' },
  { ...keepSlot, label: 'Name (auto)', target: 'PersonFullName', multiple: false, adoption: 'auto' },
  { ...keepSlot, label: 'Company (auto)', target: 'LegalEntityRegistration', subject: 'company', multiple: true, adoption: 'auto' },
];
const slotIndex = (lapse: Lapse, adoption: 'manual' | 'auto') => (adoption === 'auto' ? 2 : 0) + (lapse.party ? 1 : 0);

/** Version n of the record: a person's name, or a company's registration. */
const recordData = (party: boolean, n: number | string): Record<string, unknown> =>
  party ? { registrationNumber: `HRB ${n}`, country: 'DE' } : { givenName: `V${n}`, familyName: 'Example' };

/** Events that move or open a person's record for an organization. */
const MOVES = ['CopyKept', 'AdoptionPended', 'ReceiptWritten'];

const SET_MEMBER = `mutation($e: ID!, $m: String!, $role: EntityRole!) {
  user { entity { setMember(entityId: $e, email: $m, role: $role) { members { email role } } } }
}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`consent at the moment data moves: every path × every lapse (contract 10.1, 10.2; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  /** The service's clock: real time, moved on by hand where a retention must pass. */
  const clock = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };
  let service: TestService;
  let api: OrgClient;
  let queue: JobQueue;
  let workers: CopyWorkers;
  let main: Org;

  const d = driver({ api: () => api, member: () => main.token, log: () => service.db });
  const { gql, ok, revoke, suspend, withdraw } = d;
  const expectStatus = (r: Reply, status: number, what: string) => {
    expect(r.status, `${what}: ${JSON.stringify(r.body)}`).to.equal(status);
    return r.body;
  };

  /** An organization with a member signed in (its key warm) and a manifest of SLOTS per retention. */
  async function organization(name: string): Promise<Org> {
    const owner = await api.user();
    const orgId = await api.organization(owner.token, name);
    const token = await api.signIn(owner.token, orgId);
    const manifest = (retention: string) => d.manifest(SLOTS, retention, { as: token });
    return { orgId, owner, token, manifests: { long: await manifest('P30D'), short: await manifest(SHORT_RETENTION) } };
  }

  /** A fresh person with version 1 of one record, granted on the lapse's slot of a request `org` sent. */
  async function given(lapse: Lapse, adoption: 'manual' | 'auto', org: Org = main): Promise<Cell> {
    const person = await api.user();
    const entityId = lapse.party ? await d.entity(person, 'Ann GmbH') : null;
    const docId = await d.createDoc(person, {
      name: lapse.party ? 'Registration' : 'Name',
      schemaRef: schemaRef(lapse.party ? 'LegalEntityRegistration' : 'PersonFullName'),
      data: recordData(lapse.party, 1),
      ...(entityId ? { owner: entityId } : {}),
    });
    const manifest = org.manifests[lapse.retention];
    const slotId = manifest.slots[slotIndex(lapse, adoption)]!.slotId;
    const requestId = await d.connected(manifest.manifestId, person, { [slotId]: [docId] }, { as: org.token });
    return { org, person, entityId, docId, requestId, slotId, partner: null };
  }

  const publisherOf = (l: Lapse, c: Cell): User | null =>
    l.publisher === 'person' ? c.person : l.publisher === 'partner' ? c.partner : null;
  const publish = async (u: User, c: Cell, party: boolean, n: number) => d.updateDoc(u, c.docId, recordData(party, n));
  /** A cell's calls carry its organization's member token. */
  const as = (c: Cell) => ({ as: c.org.token });
  const keep = (c: Cell) => d.keep(c.requestId, c.slotId, as(c));
  const correct = (c: Cell, body: Record<string, unknown>) =>
    d.correct(c.requestId, c.slotId, { sourceResourceId: c.docId, ...body }, as(c));
  const detail = (c: Cell) => d.detail(c.requestId, as(c));
  const copies = (c: Cell) => d.copies(c.requestId, as(c));
  const history = async (c: Cell) =>
    expectStatus(await api.get(`/org/v1/requests/${c.requestId}/history`, c.org.token), 200, 'history').history as HistoryEntry[];
  const proposals = (c: Cell) => d.proposals(c.requestId, as(c));
  const stateOf = async (c: Cell) => ((await detail(c)).request as { state: string }).state;
  /** The connection's state after the lapse, as the organization reads it. */
  const lapsedTo = async (c: Cell, state: string) => expect(await stateOf(c), 'the lapse took effect').to.equal(state);
  /** The person changes the connection; the organization then reads it in `state`. */
  async function changed(c: Cell, change: (person: User, requestId: string) => Promise<unknown>, state: string) {
    await change(c.person, c.requestId);
    await lapsedTo(c, state);
  }

  /** The events about the request (its stream, its copy chains, or its id in the data) appended since `before`. */
  const appendedSince = (c: Cell, before: LogMark) => d.eventsSince(before, { about: c.requestId });
  async function expectNothingMoved(c: Cell, before: LogMark) {
    const types = (await appendedSince(c, before)).map((e) => e.type);
    expect(
      types.filter((t) => MOVES.includes(t)),
      `nothing moved (appended: ${types.join(', ') || 'none'})`,
    ).to.deep.equal([]);
  }

  /** Waits until every background job so far has run: none waiting, running or delayed, twice in a row. */
  async function settled(): Promise<void> {
    const idle = async () =>
      (await Promise.all(['auto-keep', 'drain'].map((q) => queue.depth(q)))).every((d) => d.waiting + d.active + d.delayed === 0);
    for (let i = 0; i < 200; i++) {
      if (await idle()) {
        await sleep(300);
        if (await idle()) return;
      }
      await sleep(50);
    }
    throw new Error('the copy workers never settled');
  }

  /** Polls until `found` answers something, within a bound. */
  async function eventually<T>(what: string, found: () => Promise<T | null | undefined>): Promise<T> {
    for (let i = 0; i < 200; i++) {
      const value = await found();
      if (value !== null && value !== undefined) return value;
      await sleep(50);
    }
    throw new Error(`never happened: ${what}`);
  }

  const system = (): EventContext => ({
    occurredAt: clock.now().toISOString(),
    actor: { kind: 'system', id: 'job:consent-matrix' },
    correlationId: 'consent-matrix',
    causationId: null,
  });

  /** Keeps version 1 by hand, as the organization would before consent lapses. */
  async function keptV1(c: Cell): Promise<void> {
    const kept = expectStatus(await keep(c), 200, 'keep of version 1');
    expect((kept.adoptions as Adoption[]).map((a) => [a.sourceVersion, a.state])).to.deep.equal([[1, 'materialized']]);
  }

  /** Waits for the automatic keep of version 1 that the accept started. */
  async function autoKeptV1(c: Cell): Promise<void> {
    const kept = await eventually('version 1 is kept automatically at accept', async () => {
      const found = await copies(c);
      return found.length > 0 ? found : null;
    });
    expect(kept.map((k) => [k.adoption.sourceVersion, k.adoption.state])).to.deep.equal([[1, 'materialized']]);
  }

  /** The automatic keep as the auto-keep worker runs it (its job also runs in the background here), then every job settled. */
  async function keepAutomatically(c: Cell): Promise<void> {
    // The cell's ids parsed as the worker parses its job's payload.
    const [requestId, slotId] = [parseId<'request'>(c.requestId)!, parseId<'slot'>(c.slotId)!];
    await copyWorkOf(service.domain!.copies).keepAutomatically(requestId, slotId, system());
    await settled();
  }

  /**
   * Version 1 kept with the key cold: a pending adoption. In an organization of its own, as sealing its
   * key must not disturb the other cells.
   */
  async function pendedV1(l: Lapse): Promise<Cell> {
    const org = await organization('Drainer');
    const c = await given(l, 'manual', org);
    expectStatus(await api.post('/org/v1/key/seal', org.token), 200, 'seal');
    const kept = expectStatus(await keep(c), 200, 'cold keep');
    expect((kept.adoptions as Adoption[]).map((a) => [a.sourceVersion, a.state])).to.deep.equal([[1, 'pending']]);
    return c;
  }

  /** A member's sign-in warms the key (and may start a background drain); then the drain route's answer. */
  async function warmAndDrain(c: Cell): Promise<Record<string, unknown>> {
    c.org.token = await api.signIn(c.org.owner.token, c.org.orgId);
    return expectStatus(await api.post(`/org/v1/requests/${c.requestId}/adoptions/drain`, c.org.token), 200, 'drain');
  }

  /** The person publishes version 2 and the new-version reaction opens a proposal of it. */
  async function openProposal(c: Cell, party: boolean): Promise<Proposal> {
    await publish(c.person, c, party, 2);
    const open = await eventually('a proposal of version 2 opens', async () => (await proposals(c)).find((p) => p.newVersion === 2));
    return open;
  }

  const expectOnlyV1Copy = async (c: Cell, party: boolean) =>
    expect(
      (await copies(c)).map((x) => [x.adoption.sourceVersion, x.data]),
      'the organization holds version 1 only',
    ).to.deep.equal([[1, recordData(party, 1)]]);

  async function expectProposalClosed(c: Cell, p: Proposal): Promise<void> {
    expect(
      (await proposals(c)).map((x) => x.proposalId),
      'the proposal is no longer open',
    ).to.not.include(p.proposalId);
    const closed = await eventually('ProposalClosed (withdrawn) in the history', async () =>
      (await history(c)).find((e) => e.type === 'ProposalClosed' && e.versions.proposalId === p.proposalId),
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}: ${JSON.stringify((await history(c)).map((h) => [h.type, h.versions.reason ?? null]))}`);
    });
    expect(closed.versions.reason).to.equal('withdrawn');
  }

  const LAPSES: readonly Lapse[] = [
    {
      name: 'revoked',
      party: false,
      retention: 'long',
      refusal: 'adoption_refused',
      discarded: 'connection_inactive',
      closesProposal: false,
      apply: (c) => changed(c, revoke, 'revoked'),
      publisher: 'person',
    },
    {
      name: 'suspended',
      party: false,
      retention: 'long',
      refusal: 'adoption_refused',
      discarded: 'connection_inactive',
      closesProposal: false,
      apply: (c) => changed(c, suspend, 'suspended'),
      publisher: 'person',
    },
    {
      name: 'expired',
      party: false,
      retention: 'short',
      refusal: 'adoption_refused',
      discarded: 'connection_inactive',
      closesProposal: false,
      apply: async (c) => {
        // Past the accepted retention by a minute. Sessions (72 h) and the key's warmth (12 h) outlast it.
        clock.offsetMs += SHORT_RETENTION_MS + 60_000;
        await lapsedTo(c, 'expired');
      },
      publisher: 'person',
    },
    {
      name: 'slot withdrawn',
      party: false,
      retention: 'long',
      refusal: 'adoption_refused',
      discarded: 'not_granted',
      closesProposal: false,
      apply: (c) => changed(c, (person, requestId) => withdraw(person, requestId, c.slotId), 'active'),
      publisher: 'person',
    },
    {
      name: 'participant ineligible',
      party: true,
      retention: 'long',
      refusal: 'participant_ineligible',
      discarded: 'participant_ineligible',
      closesProposal: false,
      apply: async (c) => {
        // A second MANAGER of the company demotes the person to MEMBER: the person no longer answers for it.
        const partner = await api.user();
        const setRole = (u: User, email: string, role: string) => gql(u, SET_MEMBER, { e: c.entityId, m: email, role });
        ok(await setRole(c.person, partner.email, 'MANAGER'));
        const members = ok(await setRole(partner, c.person.email, 'MEMBER')).user.entity.setMember.members as Array<{
          email: string;
          role: string;
        }>;
        expect(members).to.deep.include({ email: c.person.email, role: 'MEMBER' });
        c.partner = partner;
      },
      publisher: 'partner',
    },
    {
      name: 'source deleted',
      party: false,
      retention: 'long',
      refusal: 'adoption_refused',
      discarded: 'source_unavailable',
      closesProposal: true,
      apply: async (c) => {
        expect(await d.deleteDoc(c.person, c.docId)).to.equal(true);
      },
      publisher: null,
    },
    {
      name: 'account erased',
      party: false,
      retention: 'long',
      refusal: 'adoption_refused',
      discarded: 'connection_inactive',
      closesProposal: false,
      apply: async (c) => {
        expect(ok(await gql(c.person, 'mutation { user { security { requestErasure } } }')).user.security.requestErasure).to.equal(true);
        const code = mailer.lastCodeFor(c.person.email);
        const erased = ok(await gql(c.person, 'mutation($code: String!) { user { security { eraseAccount(code: $code) } } }', { code }));
        expect(erased.user.security.eraseAccount).to.equal(true);
        expect(await stateOf(c), 'erasure closes the connection').to.equal('revoked');
      },
      publisher: null,
    },
  ];

  /**
   * A proposal of version 2 opened on a kept version 1, then the lapse, then `use` (candidate or
   * adopt): 403 with the lapse's code, nothing moved, only version 1 kept, and the proposal closed
   * where the lapse withdraws it. Answers the use's reply for what else the path checks.
   */
  async function usedAfterLapse(l: Lapse, use: (c: Cell, p: Proposal) => Promise<Reply>): Promise<Reply> {
    const c = await given(l, 'manual');
    await keptV1(c);
    const p = await openProposal(c, l.party);
    await l.apply(c);
    const before = await d.mark();
    const reply = await use(c, p);
    expect(problem(reply)).to.deep.equal({ status: 403, code: l.refusal });
    await expectNothingMoved(c, before);
    await expectOnlyV1Copy(c, l.party);
    if (l.closesProposal) await expectProposalClosed(c, p);
    return reply;
  }

  type Path = { readonly name: string; readonly outcome: (l: Lapse) => string; readonly run: (l: Lapse) => Promise<void> };

  const PATHS: readonly Path[] = [
    {
      name: 'keep',
      outcome: (l) => `403 ${l.refusal}, nothing kept`,
      async run(l) {
        const c = await given(l, 'manual');
        await l.apply(c);
        const before = await d.mark();
        expect(problem(await keep(c))).to.deep.equal({ status: 403, code: l.refusal });
        await expectNothingMoved(c, before);
        expect(await copies(c), 'copies serves nothing').to.deep.equal([]);
      },
    },
    {
      name: 'automatic keep',
      outcome: () => 'nothing kept',
      async run(l) {
        const c = await given(l, 'auto');
        await autoKeptV1(c);
        const before = await d.mark();
        await l.apply(c);
        const publisher = publisherOf(l, c);
        if (publisher) await publish(publisher, c, l.party, 2);
        await keepAutomatically(c);
        await expectNothingMoved(c, before);
        await expectOnlyV1Copy(c, l.party);
      },
    },
    {
      name: 'drain',
      outcome: (l) => `discarded (${l.discarded}), nothing kept`,
      async run(l) {
        const c = await pendedV1(l);
        const before = await d.mark();
        await l.apply(c);
        expect(await warmAndDrain(c)).to.deep.equal({ materialized: 0, stillPending: 0 });
        expect((await detail(c)).adoptions, 'the discarded keep leaves the adoptions').to.deep.equal([]);
        const entry = await eventually('AdoptionDiscarded in the history', async () =>
          (await history(c)).find((e) => e.type === 'AdoptionDiscarded'),
        ).catch(async (e: Error) => {
          throw new Error(`${e.message}: ${JSON.stringify((await history(c)).map((h) => h.type))}`);
        });
        expect(entry.versions.reason).to.equal(l.discarded);
        await settled();
        const appended = (await appendedSince(c, before)).map((e) => e.type);
        expect(appended, 'no copy kept').to.not.include('CopyKept');
        expect(await copies(c), 'copies serves nothing').to.deep.equal([]);
      },
    },
    {
      name: 'candidate',
      outcome: (l) => `403 ${l.refusal}, no receipt${l.closesProposal ? ', proposal closed (withdrawn)' : ''}`,
      async run(l) {
        const read = await usedAfterLapse(l, (c, p) =>
          api.get(`/org/v1/requests/${c.requestId}/proposals/${p.proposalId}/candidate`, c.org.token),
        );
        expect(read.body, 'no data of version 2').to.not.have.any.keys('data', 'version');
      },
    },
    {
      name: 'proposal adopt',
      outcome: (l) => `403 ${l.refusal}, version 2 not kept${l.closesProposal ? ', proposal closed (withdrawn)' : ''}`,
      async run(l) {
        await usedAfterLapse(l, (c, p) => api.post(`/org/v1/requests/${c.requestId}/proposals/${p.proposalId}/adopt`, c.org.token));
      },
    },
    {
      name: 'correct',
      outcome: (l) =>
        `200 against version 1 (orgVersion 2); 409 version_conflict ${l.publisher ? 'naming no version published since' : 'not naming 5'}`,
      async run(l) {
        const c = await given(l, 'manual');
        await keptV1(c);
        await l.apply(c);
        const publisher = publisherOf(l, c);
        if (publisher) for (const n of [2, 3, 4, 5]) await publish(publisher, c, l.party, n);
        const before = await d.mark();
        const fixed = await correct(c, { expectedSourceVersion: 1, expectedOrgVersion: 1, data: recordData(l.party, 'ours') });
        expect(fixed.status, JSON.stringify(fixed.body)).to.equal(200);
        expect(fixed.body.orgVersion).to.equal(2);
        const stale = await correct(c, { expectedSourceVersion: 5, expectedOrgVersion: 2, data: recordData(l.party, 'ours again') });
        expect(problem(stale)).to.deep.equal({ status: 409, code: 'version_conflict' });
        const said = String(stale.body.detail);
        if (publisher) expect(said, 'names no version published after consent lapsed').to.not.match(/\b[2-5]\b/);
        else expect(said, 'does not name version 5').to.not.match(/\b5\b/);
        await expectNothingMoved(c, before);
      },
    },
  ];

  before(async () => {
    service = await startTestService({ domain: { mailer, now: clock.now } });
    queue = await openWorkerQueue(service);
    workers = await startWorkers(service, queue);
    api = orgClient(service.url, mailer);
    main = await organization('Acme');
  });
  after(async () => {
    await workers.stop();
    await queue.close();
    await service.close();
  });

  for (const path of PATHS) {
    for (const lapse of LAPSES) {
      it(`${path.name} × ${lapse.name} → ${path.outcome(lapse)}`, () => path.run(lapse));
    }
  }

  // Controls: with consent standing, the same set-ups do move data, so the cells above prove a refusal.
  it('automatic keep × no lapse (control) → version 2 kept', async () => {
    const c = await given(LAPSES[0]!, 'auto');
    await autoKeptV1(c);
    const before = await d.mark();
    await publish(c.person, c, false, 2);
    await keepAutomatically(c);
    const kept = (await appendedSince(c, before)).filter((e) => e.type === 'CopyKept').map((e) => e.data.sourceVersion);
    expect(kept).to.deep.equal([2]);
  });

  it('drain × no lapse (control) → version 1 kept', async () => {
    const c = await pendedV1(LAPSES[0]!);
    const before = await d.mark();
    const drained = await warmAndDrain(c);
    // The sign-in's background drain may have kept it first.
    expect([
      { materialized: 1, stillPending: 0 },
      { materialized: 0, stillPending: 0 },
    ]).to.deep.include(drained);
    await settled();
    const kept = (await appendedSince(c, before)).filter((e) => e.type === 'CopyKept').map((e) => e.data.sourceVersion);
    expect(kept).to.deep.equal([1]);
    expect((await copies(c)).map((x) => x.data)).to.deep.equal([recordData(false, 1)]);
  });

  it('correct × no lapse (control: active connection) → 409 version_conflict naming version 2', async () => {
    const lapse = LAPSES[0]!;
    const c = await given(lapse, 'manual');
    await keptV1(c);
    await publish(c.person, c, false, 2);
    const stale = await correct(c, { expectedSourceVersion: 1, expectedOrgVersion: 1, data: recordData(false, 'ours') });
    expect(problem(stale)).to.deep.equal({ status: 409, code: 'version_conflict' });
    expect(String(stale.body.detail)).to.match(/\b2\b/);
  });
});
