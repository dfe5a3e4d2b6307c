import { expect } from 'chai';
import { SqlEventStore } from '../../../src/events/sql/sql-event-store.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../../support/databases.js';

describe(`the log's schema: the transaction id shift (${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;

  before(async () => {
    t = await openTestDatabase();
    await SqlEventStore.open(t.db);
  });
  after(() => t.drop());

  const plan = async (sql: string) =>
    (await t.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (VERBOSE) ${sql}`)).rows.map((r) => r['QUERY PLAN']).join('\n');

  it('an append stamps its transaction id with one inlined expression, reading no table for the shift', async () => {
    const insert = await plan(
      `INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata) VALUES ('s', 0, gen_random_uuid(), 't', '{}', '{}')`,
    );
    expect(insert).to.include('pg_current_xact_id()');
    expect(insert).not.to.match(/xid_shift|xid_now/);
    const read = await plan('SELECT * FROM es.events WHERE transaction_id < es.readable_below()');
    expect(read).to.include('pg_snapshot_xmin(pg_current_snapshot())');
    expect(read).not.to.match(/xid_shift|readable_below/);
  });

  it('another start with nothing restored replaces neither function nor the default, so running instances keep their plans', async () => {
    const versions = async () =>
      (
        await t.db.query<{ what: string; version: string }>(
          `SELECT proname AS what, xmin::text AS version FROM pg_proc
           WHERE pronamespace = 'es'::regnamespace AND proname IN ('xid_now', 'readable_below')
           UNION ALL SELECT 'default', xmin::text FROM pg_attrdef WHERE adrelid = 'es.events'::regclass
           ORDER BY what`,
        )
      ).rows;
    const before = await versions();
    expect(before.map((v) => v.what)).to.deep.equal(['default', 'readable_below', 'xid_now']);
    await SqlEventStore.open(t.db);
    expect(await versions()).to.deep.equal(before);
  });
});
