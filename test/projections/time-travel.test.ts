import { expect } from 'chai';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { comparePositions, formatPosition, type Position } from '../../src/events/position.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import type { EventStore } from '../../src/events/store.js';
import { allProjectors } from '../../src/projections/index.js';
import { describeCut, withinCut } from '../../src/projections/log-cut.js';
import { replay } from '../../src/projections/replay.js';
import { ProjectorEventError } from '../../src/projections/stall.js';
import { timeTravel, TimeTravelRefusedError } from '../../src/projections/time-travel.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent } from '../support/events.js';
import { refusingProjector } from '../support/projectors.js';
import { RecordingMailer } from '../support/recording-mailer.js';
import { orgClient } from '../api/org/org-client.js';
import { consentScenario, type User } from '../api/support/consent-scenario.js';
import { startTestService, type TestService } from '../api/support/service.js';
import { tablesOf } from '../support/tables.js';

/** The log as it stood at `cut`: what a replay of a log truncated there reads. */
function logCutAt(store: EventStore, cut: Position): EventStore {
  const upTo = (events: RecordedEvent[]) => events.filter((e) => comparePositions(e.position, cut) <= 0);
  return {
    kind: store.kind,
    appendToStream: () => Promise.reject(new Error('a cut log is read only')),
    readAll: async (o) => upTo(await store.readAll(o)),
    readStream: async (id, o) => upTo(await store.readStream(id, o)),
    subscribeToAll: () => {
      throw new Error('a replay does not subscribe');
    },
    headPosition: () => Promise.resolve(cut),
    onAppended: () => () => undefined,
    close: () => Promise.resolve(),
  };
}

describe(`time travel: read models as of a point of the log (R-TT-01..04; ${mainBackend})`, function () {
  this.timeout(180_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let owner: User;
  let log: RecordedEvent[];
  let beforeCorrection: Position;

  const copyVersions = (schema: string) =>
    service.db.query<{ org_version: number; origin: string }>(
      `SELECT org_version, origin FROM "${schema}".copy_versions ORDER BY org_version`,
    );

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    const api = orgClient(service.url, mailer);
    let token = '';
    const calls = consentScenario(api, () => token);
    owner = await api.user();
    token = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    const slot = { group: 'KYC', multiple: false, kind: 'schema', verbs: ['keep'], adoption: 'manual' };
    const m = await api.post('/org/v1/manifests', token, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [{ ...slot, label: 'Name', target: 'PersonFullName' }],
    });
    const manifest = m.body.manifest as { manifestId: string; slots: Array<{ slotId: string }> };
    const slotId = manifest.slots[0]!.slotId;
    const ann = await api.user();
    const doc = await calls.createDoc(ann, 'PersonFullName', { givenName: 'Ann', familyName: 'Example' });
    const requestId = await calls.connected(manifest.manifestId, ann, { [slotId]: [doc] });
    await calls.keep(requestId, slotId);
    await calls.correct(requestId, slotId, {
      expectedSourceVersion: 1,
      expectedOrgVersion: 1,
      data: { givenName: 'Anna', familyName: 'Example' },
    });
    await calls.updateDoc(ann, doc, { givenName: 'Ann', familyName: 'Example-Smith' });
    log = await service.store.readAll({ maxCount: 100_000 });
    // The events feed follows the log on its own (R-FEED-06): caught up, the live read models stand still.
    await service.engine.waitFor(log.at(-1)!.position);
    const corrected = log.findIndex((e) => e.type === 'CopyCorrected');
    expect(corrected, 'the scenario corrected a copy').to.be.greaterThan(0);
    expect(corrected, 'events follow the correction').to.be.lessThan(log.length - 1);
    beforeCorrection = log[corrected - 1]!.position;
  });
  after(() => service.close());

  it('time travel to a position equals a replay of the log cut at that position, table for table, row for row', async () => {
    const liveBefore = await tablesOf(service.db, 'rm');
    const report = await timeTravel({
      db: service.db,
      store: service.store,
      projectors: allProjectors,
      until: cut(beforeCorrection),
      target: 'tt_before',
    });
    expect(report.lastApplied).to.deep.equal(beforeCorrection);
    expect(report.events).to.equal(log.findIndex((e) => e.type === 'CopyCorrected'));
    expect(report.total).to.equal(report.events);

    const cutLog: TestDatabase = await openTestDatabase();
    try {
      await SqlEventStore.open(cutLog.db);
      await replay({ db: cutLog.db, store: logCutAt(service.store, beforeCorrection), projectors: allProjectors });
      const travelled = await tablesOf(service.db, 'tt_before');
      expect(Object.keys(travelled)).to.have.length(Object.keys(liveBefore).length);
      expect(travelled).to.deep.equal(await tablesOf(cutLog.db, 'rm'));
    } finally {
      await cutLog.drop();
    }
    // What the organization saw before the correction, and what it sees now.
    expect((await copyVersions('tt_before')).rows).to.deep.equal([{ org_version: 1, origin: 'copy' }]);
    expect((await copyVersions('rm')).rows).to.deep.equal([
      { org_version: 1, origin: 'copy' },
      { org_version: 2, origin: 'correction' },
    ]);
    expect(await tablesOf(service.db, 'rm'), 'the live read models and their checkpoints are untouched').to.deep.equal(liveBefore);
  });

  it('time travel to an ISO time takes the log up to the first event that occurred later', async () => {
    const corrected = log.find((e) => e.type === 'CopyCorrected')!;
    const at = new Date(Date.parse(corrected.metadata.occurredAt) - 1);
    const firstLater = log.findIndex((e) => Date.parse(e.metadata.occurredAt) > at.getTime());
    const expected = log[firstLater - 1]!.position;

    const report = await timeTravel({
      db: service.db,
      store: service.store,
      projectors: allProjectors,
      until: { kind: 'time', at },
      target: 'tt_time',
    });
    expect(formatPosition(report.lastApplied!)).to.equal(formatPosition(expected));
    expect(report.events).to.equal(firstLater);
    await timeTravel({ db: service.db, store: service.store, projectors: allProjectors, until: cut(expected), target: 'tt_same' });
    expect(await tablesOf(service.db, 'tt_time')).to.deep.equal(await tablesOf(service.db, 'tt_same'));
  });

  it('stops at the first event in log order that occurred after the time, even when a later one occurred before it', () => {
    const event = (n: number, occurredAt: string): RecordedEvent => {
      const e = newEvent('Noted', { n }, { occurredAt });
      const position = { commit: BigInt(100 + n), prepare: BigInt(n) };
      return { ...e, streamId: 'notes', revision: n, position, metadata: { ...e.metadata, prevHash: null, hash: '' } };
    };
    const batch = [event(0, '2026-01-01T10:00:00Z'), event(1, '2026-01-01T10:02:00Z'), event(2, '2026-01-01T10:00:30Z')];
    const kept = withinCut({ kind: 'time', at: new Date('2026-01-01T10:01:00Z') }, batch);
    expect(kept.map((e) => e.data.n)).to.deep.equal([0]);
  });

  it('a second time travel into the same schema replaces it', async () => {
    await timeTravel({ db: service.db, store: service.store, projectors: allProjectors, until: cut(log[2]!.position), target: 'tt_again' });
    const early = await tablesOf(service.db, 'tt_again');
    await timeTravel({ db: service.db, store: service.store, projectors: allProjectors, until: cut(beforeCorrection), target: 'tt_again' });
    await timeTravel({ db: service.db, store: service.store, projectors: allProjectors, until: cut(beforeCorrection), target: 'tt_fresh' });
    const again = await tablesOf(service.db, 'tt_again');
    expect(again).to.not.deep.equal(early);
    expect(again).to.deep.equal(await tablesOf(service.db, 'tt_fresh'));
  });

  it('a time travel that fails leaves its schema marked unfinished, and one that ends marks it as of its cut', async () => {
    const note = async () =>
      (await service.db.query<{ note: string }>(`SELECT obj_description('tt_marked'::regnamespace, 'pg_namespace') AS note`)).rows[0]!.note;
    const refused = log[3]!.metadata.eventId;
    // Beside the others, it refuses one event: the build stops there, its read models part-way.
    const refusing = refusingProjector(refused);
    const until = cut(beforeCorrection);
    const failed = await timeTravel({
      db: service.db,
      store: service.store,
      projectors: [...allProjectors, refusing],
      until,
      target: 'tt_marked',
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failed).to.be.instanceOf(ProjectorEventError);
    expect(await note()).to.equal(`time travel build, unfinished: as of ${describeCut(until)}`);
    await timeTravel({ db: service.db, store: service.store, projectors: allProjectors, until, target: 'tt_marked' });
    expect(await note()).to.equal(`time travel build as of ${describeCut(until)}`);
  });

  it('refuses to build into the live schema, a schema of the service, or one it did not build, and a position beyond the log', async () => {
    const travel = (target: string, until = cut(beforeCorrection)) =>
      timeTravel({ db: service.db, store: service.store, projectors: allProjectors, until, target }).then(
        () => expect.fail(`built into ${target}`),
        (e: unknown) => {
          expect(e).to.be.instanceOf(TimeTravelRefusedError);
          return (e as Error).message;
        },
      );
    const live = await tablesOf(service.db, 'rm');
    expect(await travel('rm')).to.match(/rm is the live read-model schema/);
    expect(await travel('rm_rebuild')).to.match(/npm run replay/);
    expect(await travel('es')).to.match(/schema the service or PostgreSQL uses/);
    expect(await travel('analytics')).to.match(/schema the service or PostgreSQL uses/);
    expect(await travel('Bad-Name')).to.match(/a schema name is/);
    await service.db.exec('CREATE SCHEMA someone_elses; CREATE TABLE someone_elses.notes (n int)');
    expect(await travel('someone_elses')).to.match(/was not built by a time travel/);
    const kept = await service.db.query(`SELECT 1 FROM information_schema.tables WHERE table_schema = 'someone_elses'`);
    expect(kept.rowCount, 'the schema it refused is still there').to.equal(1);
    const head = log[log.length - 1]!.position;
    const beyond = { kind: 'position', position: { commit: head.commit + 1_000_000n, prepare: 0n } } as const;
    expect(await travel('tt_future', beyond)).to.match(/the log ends at/);
    expect(await tablesOf(service.db, 'rm')).to.deep.equal(live);
  });
});

function cut(position: Position) {
  return { kind: 'position', position } as const;
}
