import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  benchOrganization,
  connect,
  grantedUnits,
  nameManifest,
  PerConnection,
  personName,
  SETUP_CONCURRENCY,
  signIn,
  SLOTS,
  UPDATE_DOCUMENT,
  type Person,
} from '../../../bench/command-data.js';
import { commandWorkloads, type BenchWorld } from '../../../bench/command-workloads.js';
import { runLoad, type Call, type Script } from '../../../bench/load.js';
import { startMailSink, type MailSink } from '../../../bench/mail-sink.js';
import { inParallel, ServiceClient } from '../../../bench/service-client.js';
import { startService, type ServiceProcess } from '../../../bench/service-process.js';
import { openBackends, type Backends } from '../../../src/backends.js';
import { verifyLog } from '../../../src/cli/verify-log-command.js';
import type { RecordedEvent } from '../../../src/events/envelope.js';
import type { Position } from '../../../src/events/position.js';
import type { EventStore } from '../../../src/events/store.js';
import { loadConfig } from '../../../src/config.js';
import { generateMasterKey, generatePrivateJwk, serializeJwkSet } from '../../../src/identity/keys/index.js';
import { allProjectors, ProjectionEngine } from '../../../src/projections/index.js';
import { replay } from '../../../src/projections/replay.js';
import { timeTravel } from '../../../src/projections/time-travel.js';
import { openTestDatabase } from '../../support/databases.js';
import { startEsdbWire } from '../../support/esdb-wire/server.js';
import { postgresBin, startOwnCluster } from '../../support/own-cluster.js';
import { tablesOf, type Tables } from '../../support/tables.js';

/** What one connection sent and what it heard back (nothing, for a request the kill cut off). */
type Sent = { readonly kind: string; readonly call: Call; status?: number; body?: string };

/** Where the service keeps its data (DATABASE_URL, or DATA_DIR for PGlite), the same before and after the kill. */
type Deployment = { readonly where: Record<string, string>; remove(): Promise<void> };

/** A document its person publishes under load: granted on every manual slot of one request and on the auto slot of another. */
type GrantedDocument = {
  readonly person: Person;
  readonly documentId: string;
  readonly manualRequestId: string;
  readonly autoRequestId: string;
};

type OpenProposal = { readonly slotId: string; readonly newVersion: number };

const PER_KIND = 16;
/** What GET …/history answers at most unasked (§10.6). */
const HISTORY_PAGE = 500;
/**
 * The kill comes once every connection has been answered and the clients have had this many 2xx
 * answers: mid-load, whatever the machine and the backend (PGlite serves a tenth of PostgreSQL).
 */
const KILL_AT_SUCCESSES = 256;
/** The load's bound: the kill comes well before it. */
const LOAD_SECONDS = 30;

/** Every request the clients sent and its answer; it kills the service mid-load (KILL_AT_SUCCESSES). */
class Recorder {
  readonly sent: Sent[] = [];
  /** 2xx answers per connection. */
  private readonly successes: number[] = [];
  killed = false;

  constructor(private readonly pid: number) {}

  /** Wraps a workload's scripts so every request and its answer are written down. */
  scripts(kind: string, scripts: readonly Script[]): Script[] {
    return scripts.map((script) => {
      const connection = this.successes.push(0) - 1;
      let last: Sent | null = null;
      return {
        next: () => {
          last = { kind, call: script.next() };
          this.sent.push(last);
          return last.call;
        },
        answered: (status, body) => {
          if (last) Object.assign(last, { status, body });
          script.answered?.(status, body);
          if (last && succeeded(last)) this.successes[connection]!++;
          if (!this.killed && this.successes.every((n) => n > 0) && this.successes.reduce((a, b) => a + b) >= KILL_AT_SUCCESSES)
            this.kill();
        },
      };
    });
  }

  private kill(): void {
    process.kill(this.pid, 'SIGKILL');
    this.killed = true;
  }
}

const answered = (s: Sent) => s.status !== undefined;
/** A 2xx, and for GraphQL (which answers its refusals with 200) no errors. */
const succeeded = (s: Sent) => s.status! >= 200 && s.status! < 300 && !('errors' in parsed<object>(s));
const parsed = <T>(s: Sent) => JSON.parse(s.body!) as T;

/**
 * Issue 16, crash safety: the real service (node src/main.ts) SIGKILLed while 64 clients publish,
 * keep, correct and adopt proposals, then started again on the same database with the same keys.
 */
describe('crash safety: SIGKILL under 64 clients, then a restart (issue 16)', function () {
  this.timeout(600_000);

  crashAndRestart('on PostgreSQL (a cluster of its own)', async () => {
    const bin = postgresBin();
    // Fault tests use a cluster of their own; the shared server's tests run without one.
    if (!process.env.DATABASE_URL || !bin) return null;
    const cluster = await startOwnCluster(bin);
    return { where: { DATABASE_URL: cluster.url('postgres') }, remove: () => cluster.stop() };
  });

  crashAndRestart('on EventStoreDB and PostgreSQL (the log on the wire-level test server unless EVENTSTORE_URL names a node)', async () => {
    // EVENTSTORE_URL needs DATABASE_URL (read models, checkpoints, queue): without it the service would not start.
    if (!process.env.DATABASE_URL) return null;
    const t = await openTestDatabase('postgres');
    const wire = process.env.EVENTSTORE_URL
      ? null
      : await startEsdbWire().catch(async (e: unknown) => {
          await t.drop();
          throw e;
        });
    return {
      where: { DATABASE_URL: t.url!, EVENTSTORE_URL: process.env.EVENTSTORE_URL ?? wire!.url },
      remove: async () => {
        await wire?.close();
        await t.drop();
      },
    };
  });

  crashAndRestart('on the embedded default (PGlite in DATA_DIR)', async () => {
    // The service runs on PGlite whatever the suite runs on: once, in the embedded run, is enough.
    if (process.env.DATABASE_URL) return null;
    const dataDir = await mkdtemp(join(tmpdir(), 'dss-crash-'));
    return { where: { DATA_DIR: dataDir }, remove: () => rm(dataDir, { recursive: true, force: true }) };
  });
});

function crashAndRestart(title: string, deploy: () => Promise<Deployment | null>): void {
  describe(title, () => {
    let deployment: Deployment | null = null;
    let mail: MailSink | null = null;
    let service: ServiceProcess | null = null;
    let second: ServiceProcess | null = null;
    /** One deployment's keys, kept across the restart as an operator's environment keeps them. */
    let env: Record<string, string>;

    before(async function () {
      deployment = await deploy();
      if (!deployment) return this.skip();
      mail = await startMailSink();
      env = {
        ...deployment.where,
        BASE_URL: 'http://dss.crash',
        JWT_PRIVATE_KEY: serializeJwkSet([await generatePrivateJwk()]),
        MASTER_KEY: generateMasterKey().toString('base64'),
      };
    });
    after(async () => {
      await second?.stop();
      await service?.stop();
      await mail?.close();
      await deployment?.remove();
    });

    const start = () => startService({ databaseUrl: env.DATABASE_URL ?? null, env, mail: mail! });

    it('every 2xx answer is in the log exactly once, reactors catch up (two instances on a server), the history is the log, a replay and a time travel to the head equal the live read models', async () => {
      service = await start();
      const api = new ServiceClient(service.url, mail!);
      const org = await benchOrganization(api);
      const world: BenchWorld = { api, org, people: new PerConnection(() => api.person()) };
      const [publish, keep, correct, adopt] = commandWorkloads(world);
      const granted = await grantedDocuments(world, PER_KIND / 2);
      const recorder = new Recorder(service.pid);
      const scripts = [
        ...recorder.scripts('publish', await publish!.scripts(PER_KIND, 0)),
        ...recorder.scripts('keep', await keep!.scripts(PER_KIND, SLOTS * 2)),
        ...recorder.scripts('correct', await correct!.scripts(PER_KIND, 0)),
        ...recorder.scripts('adopt', await adopt!.scripts(PER_KIND / 2, SLOTS)),
        ...recorder.scripts('granted publish', granted.map(publishing)),
      ];
      expect(scripts).to.have.length(64);

      await runLoad({ urls: [service.url], scripts, seconds: LOAD_SECONDS, bailout: scripts.length });
      expect(recorder.killed, `the service was killed within ${LOAD_SECONDS} s of load`).to.equal(true);
      await service.stop();
      const { sent } = recorder;
      const ok = sent.filter((s) => answered(s) && succeeded(s));
      expect(sent.filter((s) => !answered(s)).length, 'requests were in flight at the kill').to.be.greaterThan(0);
      expect(
        sent.filter((s) => answered(s) && !succeeded(s)).map((s) => `${s.call.path} ${s.status} ${s.body}`),
        'nothing clashed',
      ).to.deep.equal([]);

      service = await start();
      // On a server, a second instance beside it: both react to the log, and each reaction must still happen once.
      second = env.DATABASE_URL ? await start() : null;
      const after = new ServiceClient(service.url, mail!);
      const other = second ? new ServiceClient(second.url, mail!) : after;
      // Ready once the read models caught up with what the crash left them behind on (async, on EventStoreDB).
      await Promise.all([untilReady(after), untilReady(other)]);
      const quiet = () => Promise.all([untilQuiet(after), untilQuiet(other)]);
      await quiet();
      // After a restart the key is cold until a member signs in again (R-ORG-12): automatic keeps
      // the reactors caught up on meanwhile pended, and the sign-in drains them.
      const memberToken = await signIn(after, org.organizationId, org.ownerToken);
      await quiet();
      // Read through the other instance: what either instance's reactions wrote.
      const proposals = await inParallel(granted, SETUP_CONCURRENCY, async (g) => {
        const path = `/org/v1/requests/${g.manualRequestId}/proposals`;
        return (await other.call<{ proposals: OpenProposal[] }>('GET', path, { token: memberToken })).proposals;
      });
      const { history } = await other.call<{ history: Array<{ type: string }> }>(
        'GET',
        `/org/v1/requests/${granted[0]!.autoRequestId}/history`,
        { token: memberToken },
      );
      await second?.stop();
      second = null;
      await service.stop();
      service = null;

      const backends = await openBackends(loadConfig(env));
      try {
        const verification = await verifyLog(backends);
        expect(verification.firstBreak, 'the hash-chained log is intact').to.equal(null);
        const log = await logOf(backends);
        log.publishedOnce(ok.filter((s) => s.kind.endsWith('publish')));
        log.keptOnce(ok.filter((s) => s.kind === 'keep' || s.kind === 'adopt'));
        log.correctedOnce(ok.filter((s) => s.kind === 'correct'));
        log.proposedOnce(granted, proposals);
        await log.autoKeptOnce(granted);
        log.historyIs(granted[0]!.autoRequestId, history);
        await replayEqualsLive(backends);
        await timeTravelToHeadEqualsLive(backends);
      } finally {
        await backends.close();
      }
    });
  });
}

/**
 * Documents granted on the bench's 20 manual slots and on an auto slot: the reactors turn each
 * version into a proposal on every manual slot and an automatic keep on the auto slot.
 */
async function grantedDocuments({ api, org, people }: BenchWorld, clients: number): Promise<GrantedDocument[]> {
  const units = (await grantedUnits(api, org, await people.first(clients), 1)).map((u) => u[0]!);
  const auto = { ...org, ...(await nameManifest(api, org.memberToken, 'Auto', 1, 'auto')) };
  return inParallel(units, SETUP_CONCURRENCY, async (u) => ({
    person: u.person,
    documentId: u.documentId,
    manualRequestId: u.requestId,
    autoRequestId: (await connect(api, auto, u.person, u.documentId)).requestId,
  }));
}

function publishing(g: GrantedDocument): Script {
  let n = 0;
  return {
    next: (): Call => ({
      method: 'POST',
      path: '/graphql',
      token: g.person.token,
      body: { query: UPDATE_DOCUMENT, variables: { id: g.documentId, i: { data: personName(`Granted ${++n}`) } } },
    }),
  };
}

/** /readyz answers 200: the instance serves, its read models within their bound of the log. */
async function untilReady(api: ServiceClient): Promise<void> {
  for (let i = 0; (await api.send('GET', '/readyz')).status !== 200; i++) {
    if (i > 300) throw new Error('not ready after a minute');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** No job waiting, running or delayed for a little while: a job the kill interrupted runs again once its lease lapses. */
async function untilQuiet(api: ServiceClient): Promise<void> {
  for (let quiet = 0, i = 0; quiet < 3; i++) {
    if (i > 600) throw new Error('reactions still queued after 2 minutes');
    quiet = (await api.queuedJobs()) === 0 ? quiet + 1 : 0;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Every event of the log, read through the store the service wrote it with (PostgreSQL's or EventStoreDB). */
async function wholeLog(store: EventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for (let after: Position | undefined; ;) {
    const page = await store.readAll({ ...(after ? { after } : {}), maxCount: 5000 });
    if (page.length === 0) return events;
    events.push(...page);
    after = page.at(-1)!.position;
  }
}

/** What the log holds after the restart, against what the clients were answered. */
async function logOf({ db, store }: Backends) {
  const log = await wholeLog(store);
  const of = (...types: string[]) => log.filter((e) => types.includes(e.type)).map((e) => e.data as Record<string, unknown>);
  /** The values `key` gives these events that more than one of them share. */
  const twice = (events: readonly Record<string, unknown>[], key: (d: Record<string, unknown>) => string) => {
    const seen = new Map<string, number>();
    for (const d of events) seen.set(key(d), (seen.get(key(d)) ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
  };
  /** Each document's versions in log order (a stream's events come in revision order). */
  const versionsOf = (documentId: string) =>
    of('DocumentCreated', 'DocumentUpdated')
      .filter((d) => d.resourceId === documentId)
      .map((d) => d.version as number);
  const newestVersion = (documentId: string) => Math.max(...versionsOf(documentId));

  return {
    /** Each document's versions in the log: 1..n, none twice, and every version a publish was answered with among them. */
    publishedOnce(publishes: readonly Sent[]): void {
      const answeredVersion = (s: Sent) =>
        parsed<{ data: { user: { document: { update: { version: number } } } } }>(s).data.user.document.update.version;
      const byDocument = new Map<string, number[]>();
      for (const s of publishes) {
        const id = (s.call.body as { variables: { id: string } }).variables.id;
        byDocument.set(id, [...(byDocument.get(id) ?? []), answeredVersion(s)]);
      }
      expect(byDocument.size).to.be.greaterThan(0);
      for (const [id, versions] of byDocument) {
        const logged = versionsOf(id);
        expect(logged, `versions of ${id}`).to.deep.equal(logged.map((_, i) => i + 1));
        expect(logged, `versions answered for ${id}`).to.include.members(versions);
      }
    },

    /** One CopyKept per adoption in the whole log, and one for every keep or adopt answered. */
    keptOnce(keeps: readonly Sent[]): void {
      expect(keeps.length).to.be.greaterThan(0);
      expect(twice(of('CopyKept'), (d) => String(d.adoptionId))).to.deep.equal([]);
      const adoptionOf = (s: Sent) => {
        const body = parsed<{ adoptionId?: string; adoptions?: Array<{ adoptionId: string }> }>(s);
        return body.adoptionId ?? body.adoptions?.[0]?.adoptionId;
      };
      const kept = new Set(of('CopyKept').map((d) => d.adoptionId));
      for (const s of keeps) expect(kept.has(adoptionOf(s)!), `${s.call.path} answered ${s.body}`).to.equal(true);
    },

    /** One CopyCorrected per chain version, and the one each correct was answered with among them. */
    correctedOnce(corrects: readonly Sent[]): void {
      expect(corrects.length).to.be.greaterThan(0);
      const version = (d: Record<string, unknown>) => `${String(d.orgResourceId)} v${String(d.orgVersion)}`;
      expect(twice(of('CopyCorrected'), version)).to.deep.equal([]);
      const corrected = new Set(of('CopyCorrected').map(version));
      for (const s of corrects) {
        const { adoption, orgVersion } = parsed<{ adoption: { orgResourceId: string }; orgVersion: number }>(s);
        const answered = version({ orgResourceId: adoption.orgResourceId, orgVersion });
        expect(corrected.has(answered), answered).to.equal(true);
      }
    },

    /** Each granted document's newest version open as a proposal on every manual slot (older ones closed); none proposed twice. */
    proposedOnce(granted: readonly GrantedDocument[], open: readonly (readonly OpenProposal[])[]): void {
      for (const [i, g] of granted.entries()) {
        const newest = newestVersion(g.documentId);
        const proposals = open[i]!;
        expect(newest, `${g.documentId} was published during the load`).to.be.greaterThan(1);
        expect(new Set(proposals.map((p) => p.slotId)).size, `one open proposal per slot on ${g.manualRequestId}`).to.equal(SLOTS);
        expect(proposals.map((p) => p.newVersion)).to.deep.equal(proposals.map(() => newest));
      }
      const proposal = (d: Record<string, unknown>) => `${String(d.requestId)} ${String(d.slotId)} v${String(d.newVersion)}`;
      expect(twice(of('ProposalOpened'), proposal), 'versions proposed twice').to.deep.equal([]);
    },

    /** R-HIST-01: a request's history is its stream's and its chains' events, oldest first, as the log holds them (one page). */
    historyIs(requestId: string, history: readonly { type: string }[]): void {
      const own = (e: RecordedEvent) => e.streamId === `request-${requestId}` || e.streamId.startsWith(`chain-${requestId}-`);
      const expected = log.filter(own).map((e) => e.type);
      expect(history.length, 'history entries (one page)').to.equal(Math.min(expected.length, HISTORY_PAGE));
      expect(history.map((e) => e.type)).to.deep.equal(expected.slice(0, history.length));
    },

    /** Each granted document's newest version kept once on the auto slot, and no automatic keep left pending after the sign-in. */
    async autoKeptOnce(granted: readonly GrantedDocument[]): Promise<void> {
      for (const g of granted) {
        const kept = of('CopyKept').filter((d) => d.requestId === g.autoRequestId);
        const newest = newestVersion(g.documentId);
        expect(
          kept.filter((d) => d.sourceVersion === newest),
          `automatic keeps of ${g.documentId} v${newest}`,
        ).to.have.length(1);
        const pending = await db.query(`SELECT 1 FROM rm.adoptions WHERE request_id = $1 AND state = 'pending'`, [g.autoRequestId]);
        expect(pending.rows, `pending keeps of ${g.autoRequestId}`).to.deep.equal([]);
      }
    },
  };
}

/** R-TT-01: a time travel to the log's head builds every read model as the live ones stand (rebuilt by replayEqualsLive). */
async function timeTravelToHeadEqualsLive({ db, store }: Backends): Promise<void> {
  const head = await store.headPosition();
  expect(head).to.not.equal(null);
  await timeTravel({ db, store, projectors: allProjectors, until: { kind: 'position', position: head! }, target: 'crash_at_head' });
  expect(await readModelsOf(db, 'crash_at_head')).to.deep.equal(await readModelsOf(db, 'rm'));
}

/**
 * What the service wrote inline before and after the crash equals what a rebuild from the log writes;
 * a read model that follows the log (R-FEED-06) first catches up with it, as a running service would.
 */
async function replayEqualsLive({ db, store }: Backends): Promise<void> {
  const following = new ProjectionEngine({ db, store, projectors: allProjectors.filter((p) => p.followsLog) });
  await following.start();
  const head = await store.headPosition();
  if (head) await following.waitFor(head, { timeoutMs: 60_000 });
  await following.stop();
  const live = await readModelsOf(db, 'rm');
  expect(live.adoptions?.length).to.be.greaterThan(0);
  await replay({ db, store, projectors: allProjectors });
  expect(await readModelsOf(db, 'rm')).to.deep.equal(live);
}

/** A schema's read-model tables, row by row, without its checkpoints (which say where a build stopped, not what it holds). */
async function readModelsOf(db: Backends['db'], schema: string): Promise<Tables> {
  const { projection_checkpoints: _checkpoints, ...tables } = await tablesOf(db, schema);
  return tables;
}
