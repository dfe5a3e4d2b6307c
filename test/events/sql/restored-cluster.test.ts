import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import pg from 'pg';
import { PostgresDb } from '../../../src/db/postgres-db.js';
import { SqlEventStore } from '../../../src/events/sql/sql-event-store.js';
import { ProjectionEngine } from '../../../src/projections/engine.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../../support/databases.js';
import { newEvent, uniqueStream } from '../../support/events.js';
import { postgresBin, startOwnCluster, type OwnCluster } from '../../support/own-cluster.js';
import { assertExactlyOnceInStreamOrder, recordedRows, recordingProjector, startInline } from '../../support/projectors.js';

const run = promisify(execFile);
const bin = postgresBin();

describe('backup and restore: a pg_dump restored into a fresh cluster, whose transaction ids start anew (issue 16)', function () {
  this.timeout(120_000);
  let source: TestDatabase;
  let cluster: OwnCluster;
  let restored: PostgresDb | null = null;
  let dir: string;
  const seen = recordingProjector('seen_restore');

  before(async function () {
    if (mainBackend !== 'postgres' || !bin) this.skip(); // needs PostgreSQL's own binaries and a server to dump from
    source = await openTestDatabase('postgres');
    cluster = await startOwnCluster(bin);
    dir = await mkdtemp(join(tmpdir(), 'dss-dump-'));
  });
  after(async () => {
    await restored?.close();
    await source?.drop();
    await cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const xidNow = async (url: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return BigInt((await c.query<{ x: string }>('SELECT pg_current_xact_id()::text AS x')).rows[0]!.x);
    } finally {
      await c.end();
    }
  };

  it('the service starts on the restored database, orders new events after the restored ones and projects them, inline and async', async () => {
    // A running service's log and read models, written inline.
    const { engine: live, store } = await startInline(source.db, await SqlEventStore.open(source.db), [seen]);
    const before: string[] = [];
    for (let i = 0; i < 20; i++) {
      const e = newEvent('Before', { i });
      before.push(e.metadata.eventId);
      await store.appendToStream(uniqueStream('restore'), [e], 'no_stream');
    }
    await live.stop();
    const lastRestored = (await store.readAll({ maxCount: 1000 })).at(-1)!.position;

    await run(join(bin!, 'pg_dump'), ['-Fc', '-f', join(dir, 'dump'), source.url!]);
    const admin = new pg.Client({ connectionString: cluster.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE restored');
    await admin.end();
    await run(join(bin!, 'pg_restore'), ['--no-owner', '-d', cluster.url('restored'), join(dir, 'dump')]);
    // The fresh cluster's ids are far below the ones the log holds: the case to prove.
    expect((await xidNow(cluster.url('restored'))) < lastRestored.commit).to.equal(true);

    restored = new PostgresDb(cluster.url('restored'));
    const restoredLog = await SqlEventStore.open(restored);
    const { engine: inline, store: after } = await startInline(restored, restoredLog, [seen]);
    const added: string[] = [];
    for (let i = 0; i < 5; i++) {
      const e = newEvent('After', { i });
      added.push(e.metadata.eventId);
      await after.appendToStream(uniqueStream('restore'), [e], 'no_stream');
    }
    await inline.stop();

    // The log reads every restored event, then every new one, in order: nothing stalls or is skipped.
    const log = await after.readAll({ maxCount: 1000 });
    expect(log.map((e) => e.metadata.eventId)).to.deep.equal([...before, ...added]);
    expect(log[20]!.position.commit > lastRestored.commit).to.equal(true);
    expect(assertExactlyOnceInStreamOrder(await recordedRows(restored, 'seen_restore'), [...before, ...added])).to.equal(null);

    // An asynchronous projector picks up from the restored checkpoint and takes what comes next.
    const async = new ProjectionEngine({ db: restored, store: restoredLog, projectors: [seen], idlePollMs: 20 });
    await async.start();
    const late = newEvent('Late', {});
    const appended = await restoredLog.appendToStream(uniqueStream('restore'), [late], 'no_stream');
    await async.waitFor(appended.position, { timeoutMs: 10_000 });
    await async.stop();
    expect((await recordedRows(restored, 'seen_restore')).map((r) => r.event_id)).to.deep.equal([
      ...before,
      ...added,
      late.metadata.eventId,
    ]);
  });
});
