import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ANALYTICS_SCHEMA, installAnalyticsViews } from '../../../src/projections/analytics/analytics.js';
import { SqlEventStore } from '../../../src/events/sql/sql-event-store.js';
import { allProjectors } from '../../../src/projections/index.js';
import { replay } from '../../../src/projections/replay.js';
import { copyWorkOf, startCopyWorkers, type CopyWorkers } from '../../../src/workers/copy-workers.js';
import type { JobQueue } from '../../../src/workers/queue/queue.js';
import { createLogger } from '../../../src/logger.js';
import { orgClient, type OrgClient } from '../../api/org/org-client.js';
import { startTestService, type TestService } from '../../api/support/service.js';
import { openWorkerQueue } from '../../support/copy-workers.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';

type Gql = { data?: Record<string, any> | null; errors?: unknown[] };
type User = { email: string; token: string };
type Manifest = { manifestId: string; slots: Array<{ slotId: string; label: string }> };

/** The SQL block under each "### title" of the doc's example queries: the test runs what the doc shows. */
function exampleQueries(): Map<string, string> {
  const doc = readFileSync(new URL('../../../docs/analytics.md', import.meta.url), 'utf8');
  const examples = doc.slice(doc.indexOf('## Example queries'));
  return new Map([...examples.matchAll(/^### (.+)\n[\s\S]*?```sql\n([\s\S]*?)```/gm)].map((m) => [m[1]!.trim(), m[2]!]));
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BASE = 'http://service.test/schemas/core';

describe(`analytics views: the documented example queries answer what happened (R-ANL; ${mainBackend})`, function () {
  this.timeout(180_000);
  const mailer = new RecordingMailer();
  const queries = exampleQueries();
  // The scenario runs over ten days of the service's clock ending now, so that ages read against now().
  const start = Date.now() - 10 * DAY;
  let clock: Date | null = new Date(start);
  const at = (hours: number) => new Date(start + hours * HOUR);
  const secret = `zq${randomBytes(6).toString('hex')}`;
  let service: TestService;
  let queue: JobQueue;
  let workers: CopyWorkers;
  let api: OrgClient;
  let owner: User;
  let ann: User;
  let bob: User;
  let orgId: string;
  let token: string;
  let kyc: Manifest;
  let news: Manifest;
  const requests: Record<'annKyc' | 'bobKyc' | 'carolKyc' | 'annNews', string> = { annKyc: '', bobKyc: '', carolKyc: '', annNews: '' };
  /** What the scenario did, as the client saw it: the expectations derive from this. */
  const keeps: Array<{ manifestId: string; grantedAt: Date; keptAt: Date }> = [];
  const corrections = new Map<string, number>();
  const opened: Array<{ proposalId: string; manifestId: string; slotLabel: string; proposedAt: Date }> = [];

  const gql = async (u: User, query: string, variables: Record<string, unknown> = {}) => {
    const r = (await api.post('/graphql', u.token, { query, variables })).body as Gql;
    if (r.errors) expect.fail(JSON.stringify(r.errors));
    return r.data!;
  };
  const run = async (title: string) => {
    const sql = queries.get(title);
    if (!sql) expect.fail(`docs/analytics.md has no example "${title}"`);
    return (await service.db.query(sql)).rows;
  };
  /** Moves the clock; tokens issued before may have run out, so everyone signs in again (which warms the key). */
  async function moveTo(hours: number): Promise<void> {
    clock = at(hours);
    owner = { ...owner, token: (await api.user({ email: owner.email, register: false })).token };
    ann = { ...ann, token: (await api.user({ email: ann.email, register: false })).token };
    bob = { ...bob, token: (await api.user({ email: bob.email, register: false })).token };
    token = await api.signIn(owner.token, orgId);
  }
  const send = async (m: Manifest, recipientEmail: string) => {
    const r = await api.post('/org/v1/requests', token, { manifestId: m.manifestId, recipientEmail });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return (r.body.request as { requestId: string }).requestId;
  };
  const accept = (requestId: string, grants: Array<{ slotId: string; resourceIds: string[] }>) =>
    gql(ann, 'mutation($r: ID!, $g: [GrantInput!]!) { user { request { accept(requestId: $r, grants: $g) { requestId } } } }', {
      r: requestId,
      g: grants,
    });
  const createDoc = async (input: Record<string, unknown>) =>
    (await gql(ann, 'mutation($input: DocumentInput!) { user { document { create(input: $input) { id } } } }', { input })).user.document
      .create.id as string;
  const updateDoc = (id: string, data: Record<string, unknown>) =>
    gql(ann, 'mutation($id: ID!, $i: DocumentUpdateInput!) { user { document { update(id: $id, input: $i) { version } } } }', {
      id,
      i: { data },
    });
  async function keep(requestId: string, m: Manifest, slot: number, grantedAt: Date): Promise<void> {
    const r = await api.post(`/org/v1/requests/${requestId}/slots/${m.slots[slot]!.slotId}/adopt`, token);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect((r.body.adoptions as Array<{ state: string }>)[0]!.state).to.equal('materialized');
    keeps.push({ manifestId: m.manifestId, grantedAt, keptAt: clock! });
  }
  async function correct(requestId: string, m: Manifest, slot: number, expectedOrgVersion: number, data: Record<string, unknown>) {
    const r = await api.post(`/org/v1/requests/${requestId}/slots/${m.slots[slot]!.slotId}/correct`, token, {
      expectedSourceVersion: 1,
      expectedOrgVersion,
      data,
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    const key = `${m.manifestId}/${m.slots[slot]!.label}`;
    corrections.set(key, (corrections.get(key) ?? 0) + 1);
  }
  /** Proposals open in a worker, on its own time: waits for them before the clock moves on. */
  async function proposalsOpened(requestId: string, m: Manifest, slot: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const r = await api.get(`/org/v1/requests/${requestId}/proposals`, token);
      const found = (r.body.proposals as Array<{ proposalId: string; slotId: string; proposedAt: string }>).find(
        (p) => p.slotId === m.slots[slot]!.slotId,
      );
      if (found) {
        opened.push({
          proposalId: found.proposalId,
          manifestId: m.manifestId,
          slotLabel: m.slots[slot]!.label,
          proposedAt: new Date(found.proposedAt),
        });
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect.fail(`no proposal opened on ${requestId}`);
  }

  before(async () => {
    const now = () => clock ?? new Date();
    service = await startTestService({ domain: { mailer, now } });
    await installAnalyticsViews(service.db, service.engine.schema);
    queue = await openWorkerQueue(service);
    workers = await startCopyWorkers({
      db: service.db,
      store: service.store,
      queue,
      copies: copyWorkOf(service.domain!.copies),
      proposals: service.domain!.proposals,
      logger: createLogger('silent'),
      now,
      waitFor: (p, eventTypes) => service.engine.waitFor(p, { eventTypes }),
      reactorPollMs: 50,
    });
    api = orgClient(service.url, mailer);

    // Hour 0: the organization publishes two manifests and sends four invitations.
    owner = await api.user();
    orgId = await api.organization(owner.token, 'Acme');
    token = await api.signIn(owner.token, orgId);
    ann = await api.user({ email: `ann.${secret}@example.com` });
    bob = await api.user();
    const slot = { group: 'KYC', multiple: false, kind: 'schema', verbs: ['fill', 'keep'], adoption: 'manual' };
    const publish = async (name: string, slots: unknown[]) => {
      const r = await api.post('/org/v1/manifests', token, { name, purpose: 'To check who you are', retention: 'P30D', slots });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body.manifest as Manifest;
    };
    kyc = await publish('KYC', [
      { ...slot, label: 'Name', target: 'PersonFullName' },
      { ...slot, label: 'Address', target: 'PersonAddress' },
    ]);
    news = await publish('Newsletter', [{ ...slot, label: 'Name', target: 'PersonFullName' }]);
    const name = await createDoc({
      name: `Name ${secret}`,
      schemaRef: `${BASE}/PersonFullName.json`,
      data: { givenName: secret, familyName: 'Example' },
    });
    const address = await createDoc({
      name: 'Address',
      schemaRef: `${BASE}/PersonAddress.json`,
      data: { street: `${secret} street`, locality: 'Berlin', country: 'DE' },
    });
    requests.annKyc = await send(kyc, ann.email);
    requests.bobKyc = await send(kyc, bob.email);
    requests.carolKyc = await send(kyc, `carol.${secret}@example.com`);
    requests.annNews = await send(news, ann.email);

    // Hour 1: ann grants both requests to her, bob says no, carol never answers.
    await moveTo(1);
    const granted = clock!;
    await accept(requests.annKyc, [
      { slotId: kyc.slots[0]!.slotId, resourceIds: [name] },
      { slotId: kyc.slots[1]!.slotId, resourceIds: [address] },
    ]);
    await accept(requests.annNews, [{ slotId: news.slots[0]!.slotId, resourceIds: [name] }]);
    await gql(bob, 'mutation($r: ID!) { user { request { reject(requestId: $r) { requestId } } } }', { r: requests.bobKyc });

    // Keeps on three days, corrections, then ann's new versions open proposals.
    await moveTo(27);
    await keep(requests.annKyc, kyc, 0, granted);
    await moveTo(48);
    await keep(requests.annKyc, kyc, 1, granted);
    await moveTo(49);
    await keep(requests.annNews, news, 0, granted);
    await moveTo(72);
    await correct(requests.annKyc, kyc, 0, 1, { givenName: 'Anna', familyName: 'Example' });
    await correct(requests.annKyc, kyc, 0, 2, { givenName: 'Annie', familyName: 'Example' });
    await moveTo(73);
    await correct(requests.annNews, news, 0, 1, { givenName: 'Anna', familyName: 'Example' });
    await moveTo(108);
    await updateDoc(name, { givenName: `${secret} 2`, familyName: 'Example' });
    await proposalsOpened(requests.annKyc, kyc, 0);
    await proposalsOpened(requests.annNews, news, 0);
    await moveTo(156);
    await updateDoc(address, { street: `${secret} avenue`, locality: 'Berlin', country: 'DE' });
    await proposalsOpened(requests.annKyc, kyc, 1);
    await moveTo(170);
    const dismissed = opened.find((p) => p.manifestId === news.manifestId)!;
    const d = await api.post(`/org/v1/requests/${requests.annNews}/proposals/${dismissed.proposalId}/dismiss`, token);
    expect(d.body).to.deep.equal({ dismissed: true });
    clock = null;
  });
  after(async () => {
    await workers?.stop();
    await queue?.close();
    await service?.close();
  });

  it('consent funnel by manifest counts the requests sent, accepted, rejected, granted and kept per manifest', async () => {
    expect(await run('Consent funnel by manifest')).to.deep.equal([
      { manifest_id: kyc.manifestId, manifest_name: 'KYC', sent: 3, accepted: 1, rejected: 1, granted: 1, kept: 1 },
      { manifest_id: news.manifestId, manifest_name: 'Newsletter', sent: 1, accepted: 1, rejected: 0, granted: 1, kept: 1 },
    ]);
  });

  it('time from grant to keep averages the hours between each grant and its keep, per manifest', async () => {
    const expected = [kyc, news]
      .map((m) => {
        const hours = keeps.filter((k) => k.manifestId === m.manifestId).map((k) => (k.keptAt.getTime() - k.grantedAt.getTime()) / HOUR);
        const round = (h: number) => Math.round(h * 10) / 10;
        return {
          manifest_id: m.manifestId,
          keeps: hours.length,
          avg_hours: round(hours.reduce((a, b) => a + b, 0) / hours.length),
          max_hours: round(Math.max(...hours)),
        };
      })
      .sort((a, b) => a.manifest_id.localeCompare(b.manifest_id));
    expect(keeps, 'the scenario kept three records').to.have.length(3);
    expect(await run('Time from grant to keep')).to.deep.equal(expected);
  });

  it('open proposals by age lists the proposals still open, oldest first, with their age in whole days', async () => {
    const stillOpen = opened.filter((p) => p.manifestId === kyc.manifestId);
    expect(stillOpen).to.have.length(2);
    const rows = await run('Open proposals by age');
    const now = Date.now();
    expect(rows).to.deep.equal(
      stillOpen.map((p) => ({
        proposal_id: p.proposalId,
        manifest_id: p.manifestId,
        slot_label: p.slotLabel,
        age_days: Math.floor((now - p.proposedAt.getTime()) / DAY),
      })),
    );
  });

  it('corrections per slot counts the corrections made to copies of each slot, 0 where none', async () => {
    const expected = [kyc, news]
      .sort((a, b) => a.manifestId.localeCompare(b.manifestId))
      .flatMap((m) =>
        m.slots.map((s) => ({
          manifest_id: m.manifestId,
          slot_label: s.label,
          corrections: corrections.get(`${m.manifestId}/${s.label}`) ?? 0,
        })),
      );
    expect(expected.map((e) => e.corrections).reduce((a, b) => a + b)).to.equal(3);
    expect(await run('Corrections per slot')).to.deep.equal(expected);
  });

  it('keeps per day counts the copies made on each UTC day', async () => {
    const perDay = new Map<string, number>();
    for (const k of keeps) perDay.set(k.keptAt.toISOString().slice(0, 10), (perDay.get(k.keptAt.toISOString().slice(0, 10)) ?? 0) + 1);
    const expected = [...perDay].sort(([a], [b]) => a.localeCompare(b)).map(([day, n]) => ({ day, keeps: n }));
    expect(await run('Keeps per day')).to.deep.equal(expected);
  });

  it('a request reads the same state in analytics.requests as through the API', async () => {
    const rows = (await service.db.query<{ request_id: string; state: string }>('SELECT request_id, state FROM analytics.requests')).rows;
    const fromApi = await Promise.all(
      Object.values(requests).map(async (id) => ({
        request_id: id,
        state: ((await api.get(`/org/v1/requests/${id}`, token)).body.request as { state: string }).state,
      })),
    );
    const byId = (a: { request_id: string }, b: { request_id: string }) => a.request_id.localeCompare(b.request_id);
    expect(rows.sort(byId)).to.deep.equal(fromApi.sort(byId));
  });

  it('no analytics view shows an email address or a sealed or personal value, while the read models hold them', async () => {
    const views = (
      await service.db.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.views WHERE table_schema = $1 ORDER BY table_name',
        [ANALYTICS_SCHEMA],
      )
    ).rows.map((r) => r.table_name);
    expect(views).to.include.members(['requests', 'grants', 'adoptions', 'copy_versions', 'proposals', 'documents', 'receipts']);
    const dump = async (relation: string) => JSON.stringify((await service.db.query(`SELECT * FROM ${relation}`)).rows);
    // The search can find what it looks for: the read models beneath hold the address and the document name.
    expect(await dump('rm.requests')).to.include(ann.email);
    expect(await dump('rm.documents')).to.include(secret);
    for (const view of views) {
      const text = await dump(`${ANALYTICS_SCHEMA}.${view}`);
      expect(text, view).to.not.include(secret);
      expect(text, view).to.not.match(/@example\.com/);
    }
  });

  it('docs/analytics.md documents every view and every column with its SQL type, in order', async () => {
    const doc = readFileSync(new URL('../../../docs/analytics.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^### analytics\.(\w+)\n([\s\S]*?)(?=^##)/gm)].flatMap(([, view, body]) =>
      [...body!.matchAll(/^\|\s*(\w+)\s*\|\s*(\w+)\s*\|/gm)]
        .filter(([, column]) => column !== 'Column')
        .map(([, column, type]) => `${view}.${column} ${type}`),
    );
    const longNames: Record<string, string> = { 'timestamp with time zone': 'timestamptz' };
    const actual = (
      await service.db.query<{ table_name: string; column_name: string; data_type: string }>(
        `SELECT table_name, column_name, data_type FROM information_schema.columns
         WHERE table_schema = $1 ORDER BY table_name, ordinal_position`,
        [ANALYTICS_SCHEMA],
      )
    ).rows.map((c) => `${c.table_name}.${c.column_name} ${longNames[c.data_type] ?? c.data_type}`);
    // Views in name order, each view's columns in their own order (sort is stable).
    const viewOf = (entry: string) => entry.slice(0, entry.indexOf('.'));
    expect(documented.slice().sort((a, b) => viewOf(a).localeCompare(viewOf(b)))).to.deep.equal(actual);
  });

  it('after npm run replay swapped rebuilt read models in, every view answers the same', async () => {
    const before = await Promise.all([...queries.keys()].map(run));
    // The log's own store, as npm run replay opens it: its swap reads the log inside its transaction.
    await replay({ db: service.db, store: await SqlEventStore.open(service.db), projectors: allProjectors });
    const retired = await service.db.query(`SELECT 1 FROM pg_namespace WHERE nspname = 'rm_retired'`);
    expect(retired.rowCount, 'the old read models are gone').to.equal(0);
    expect(await Promise.all([...queries.keys()].map(run))).to.deep.equal(before);
  });
});
