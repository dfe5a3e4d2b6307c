import { expect } from 'chai';
import pg from 'pg';
import { benchOrganization, grantedUnits, PerConnection, personName, SLOTS, UPDATE_DOCUMENT } from '../../../bench/command-data.js';
import { commandWorkloads, type BenchWorld } from '../../../bench/command-workloads.js';
import { runLoad, type Call, type Script } from '../../../bench/load.js';
import { startMailSink, type MailSink } from '../../../bench/mail-sink.js';
import { ServiceClient } from '../../../bench/service-client.js';
import { startService, type ServiceProcess } from '../../../bench/service-process.js';
import { PostgresDb } from '../../../src/db/postgres-db.js';
import { SqlEventStore } from '../../../src/events/sql/sql-event-store.js';
import { generateMasterKey, generatePrivateJwk, serializeJwkSet } from '../../../src/identity/keys/index.js';
import { allProjectors } from '../../../src/projections/index.js';
import { replay } from '../../../src/projections/replay.js';
import { postgresBin, startOwnCluster, type OwnCluster } from '../../support/own-cluster.js';
import { tablesOf } from '../../support/tables.js';

/** What one connection sent and what it heard back (nothing, for a request the kill cut off). */
type Sent = { readonly kind: string; readonly call: Call; status?: number; body?: string };

const PER_KIND = 16;
const LOAD_SECONDS = 4;
const KILL_AFTER_MS = 1_500;

/** Wraps a workload's scripts so every request and its answer are written down. */
function recorded(kind: string, scripts: readonly Script[], log: Sent[]): Script[] {
  return scripts.map((script) => {
    let last: Sent | null = null;
    return {
      next: () => {
        last = { kind, call: script.next() };
        log.push(last);
        return last.call;
      },
      answered: (status, body) => {
        if (last) Object.assign(last, { status, body });
        script.answered?.(status, body);
      },
    };
  });
}

const ok = (s: Sent) => s.status !== undefined && s.status >= 200 && s.status < 300;
const parsed = <T>(s: Sent) => JSON.parse(s.body!) as T;

/**
 * Issue 16, crash safety: the real service (node src/main.ts) on a PostgreSQL cluster of the
 * test's own, SIGKILLed while 64 clients publish, keep, correct and adopt proposals; then started
 * again on the same database.
 */
describe('crash safety: SIGKILL under 64 clients, then a restart (issue 16)', function () {
  this.timeout(600_000);
  let cluster: OwnCluster | null = null;
  let mail: MailSink;
  let service: ServiceProcess | null = null;
  let db: pg.Client;
  const sent: Sent[] = [];
  let env: Record<string, string>;
  let databaseUrl: string;

  before(async function () {
    const bin = postgresBin();
    // Fault tests use a cluster of their own; the shared server's tests run without one.
    if (!process.env.DATABASE_URL || !bin) return this.skip();
    cluster = await startOwnCluster(bin);
    databaseUrl = cluster.url('postgres');
    mail = await startMailSink();
    // One deployment's keys, kept across the restart as an operator's environment keeps them.
    env = {
      BASE_URL: 'http://dss.crash',
      JWT_PRIVATE_KEY: serializeJwkSet([await generatePrivateJwk()]),
      MASTER_KEY: generateMasterKey().toString('base64'),
    };
    service = await startService({ databaseUrl, env, mail });
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  });
  after(async () => {
    await service?.stop();
    await db?.end();
    await mail?.close();
    await cluster?.stop();
  });

  /** Version v of each granted document: what the reactors must turn into one open proposal per slot. */
  let grantedDocuments: Array<{ requestId: string; documentId: string }> = [];

  it('every 2xx answer is in the log exactly once, reactors catch up, and a replay equals the live read models', async () => {
    const api = new ServiceClient(service!.url, mail);
    const org = await benchOrganization(api);
    const world: BenchWorld = { api, org, people: new PerConnection(() => api.person()) };
    const [publish, keep, correct, adopt] = commandWorkloads(world);
    const scripts = [
      ...recorded('publish', await publish!.scripts(PER_KIND, 0), sent),
      ...recorded('keep', await keep!.scripts(PER_KIND, SLOTS * 2), sent),
      ...recorded('correct', await correct!.scripts(PER_KIND, 0), sent),
      ...recorded('adopt', await adopt!.scripts(PER_KIND / 2, SLOTS), sent),
      ...recorded('granted publish', await grantedPublishes(world, PER_KIND / 2), sent),
    ];
    expect(scripts).to.have.length(64);

    const killer = setTimeout(() => process.kill(service!.pid, 'SIGKILL'), KILL_AFTER_MS);
    await runLoad({ urls: [service!.url], scripts, seconds: LOAD_SECONDS });
    clearTimeout(killer);
    await service!.stop();
    const answered = sent.filter(ok);
    const cut = sent.filter((s) => s.status === undefined).length;
    expect(answered.length, 'the load ran before the kill').to.be.greaterThan(64);
    expect(cut, 'requests were in flight at the kill').to.be.greaterThan(0);

    service = await startService({ databaseUrl, env, mail });
    const after = new ServiceClient(service.url, mail);
    await untilQuiet(after);

    await publishedOnce(answered.filter((s) => s.kind.endsWith('publish')));
    await keptOnce(answered.filter((s) => s.kind === 'keep' || s.kind === 'adopt'));
    await correctedOnce(answered.filter((s) => s.kind === 'correct'));
    await proposalsCaughtUp(after, org.memberToken);

    await service.stop();
    service = null;
    await replayEqualsLive();
  });

  /** Connections publishing a document granted on every manual slot: each version must become one open proposal per slot. */
  async function grantedPublishes(world: BenchWorld, clients: number): Promise<Script[]> {
    const units = (await grantedUnits(world.api, world.org, await world.people.first(clients), 1)).map((u) => u[0]!);
    grantedDocuments = units.map((u) => ({ requestId: u.requestId, documentId: u.documentId }));
    return units.map((u) => {
      let n = 0;
      return {
        next: (): Call => ({
          method: 'POST',
          path: '/graphql',
          token: u.person.token,
          body: { query: UPDATE_DOCUMENT, variables: { id: u.documentId, i: { data: personName(`Granted ${++n}`) } } },
        }),
      };
    });
  }

  async function untilQuiet(api: ServiceClient): Promise<void> {
    for (let quiet = 0, i = 0; quiet < 3; i++) {
      if (i > 600) throw new Error('reactions still queued after 2 minutes');
      quiet = (await api.queuedJobs()) === 0 ? quiet + 1 : 0;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const rows = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => (await db.query<R>(sql, params)).rows;

  /** Each document's versions in the log: 1..n, none twice, and every version a publish was answered with among them. */
  async function publishedOnce(publishes: readonly Sent[]): Promise<void> {
    const answeredVersion = (s: Sent) =>
      parsed<{ data: { user: { document: { update: { version: number } } } } }>(s).data.user.document.update.version;
    const byDocument = new Map<string, number[]>();
    for (const s of publishes) {
      const id = (s.call.body as { variables: { id: string } }).variables.id;
      byDocument.set(id, [...(byDocument.get(id) ?? []), answeredVersion(s)]);
    }
    expect(byDocument.size).to.be.greaterThan(0);
    for (const [id, versions] of byDocument) {
      const logged = (
        await rows<{ v: number }>(
          `SELECT (data->>'version')::int AS v FROM es.events
           WHERE type IN ('DocumentCreated', 'DocumentUpdated') AND data->>'resourceId' = $1 ORDER BY revision`,
          [id],
        )
      ).map((r) => r.v);
      expect(logged, `versions of ${id}`).to.deep.equal(logged.map((_, i) => i + 1));
      expect(logged, `versions answered for ${id}`).to.include.members(versions);
    }
  }

  /** One CopyKept per adoption in the whole log, and one for every keep or adopt answered. */
  async function keptOnce(keeps: readonly Sent[]): Promise<void> {
    expect(keeps.length).to.be.greaterThan(0);
    const twice = await rows(`SELECT data->>'adoptionId' AS id FROM es.events WHERE type = 'CopyKept' GROUP BY 1 HAVING count(*) > 1`);
    expect(twice).to.deep.equal([]);
    const adoptionOf = (s: Sent) => {
      const body = parsed<{ adoptionId?: string; adoptions?: Array<{ adoptionId: string }> }>(s);
      return body.adoptionId ?? body.adoptions?.[0]?.adoptionId;
    };
    const kept = new Set(
      (await rows<{ id: string }>(`SELECT data->>'adoptionId' AS id FROM es.events WHERE type = 'CopyKept'`)).map((r) => r.id),
    );
    for (const s of keeps) expect(kept.has(adoptionOf(s)!), `${s.call.path} answered ${s.body}`).to.equal(true);
  }

  /** One CopyCorrected per chain version, and the one each correct was answered with among them. */
  async function correctedOnce(corrects: readonly Sent[]): Promise<void> {
    expect(corrects.length).to.be.greaterThan(0);
    const twice = await rows(
      `SELECT data->>'orgResourceId', data->>'orgVersion' FROM es.events WHERE type = 'CopyCorrected' GROUP BY 1, 2 HAVING count(*) > 1`,
    );
    expect(twice).to.deep.equal([]);
    for (const s of corrects) {
      const { adoption, orgVersion } = parsed<{ adoption: { orgResourceId: string }; orgVersion: number }>(s);
      const found = await rows(
        `SELECT 1 FROM es.events WHERE type = 'CopyCorrected' AND data->>'orgResourceId' = $1 AND (data->>'orgVersion')::int = $2`,
        [adoption.orgResourceId, orgVersion],
      );
      expect(found, `${adoption.orgResourceId} v${orgVersion}`).to.have.length(1);
    }
  }

  /** Each granted document's newest version is proposed once on every slot: no proposal lost to the kill, none doubled. */
  async function proposalsCaughtUp(api: ServiceClient, memberToken: string): Promise<void> {
    for (const { requestId, documentId } of grantedDocuments) {
      const newest = (
        await rows<{ v: number }>(
          `SELECT max((data->>'version')::int) AS v FROM es.events
           WHERE type IN ('DocumentCreated', 'DocumentUpdated') AND data->>'resourceId' = $1`,
          [documentId],
        )
      )[0]!.v;
      const { proposals } = await api.call<{ proposals: Array<{ slotId: string; newVersion: number }> }>(
        'GET',
        `/org/v1/requests/${requestId}/proposals`,
        { token: memberToken },
      );
      expect(newest, `${documentId} was published during the load`).to.be.greaterThan(1);
      expect(new Set(proposals.map((p) => p.slotId)).size, `one open proposal per slot on ${requestId}`).to.equal(SLOTS);
      expect(proposals.map((p) => p.newVersion)).to.deep.equal(proposals.map(() => newest));
    }
  }

  /** What the service wrote inline before and after the crash equals what a rebuild from the log writes. */
  async function replayEqualsLive(): Promise<void> {
    const sql = new PostgresDb(databaseUrl);
    try {
      const withoutCheckpoints = async () => {
        const { projection_checkpoints: _checkpoints, ...tables } = await tablesOf(sql, 'rm');
        return tables;
      };
      const live = await withoutCheckpoints();
      expect(live.adoptions?.length).to.be.greaterThan(0);
      await replay({ db: sql, store: await SqlEventStore.open(sql), projectors: allProjectors });
      expect(await withoutCheckpoints()).to.deep.equal(live);
    } finally {
      await sql.close();
    }
  }
});
