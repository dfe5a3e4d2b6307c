import { expect } from 'chai';
import pg from 'pg';
import { PostgresDb } from '../../../src/db/postgres-db.js';
import { SqlEventStore } from '../../../src/events/sql/sql-event-store.js';
import { onScratchPostgres } from '../../support/databases.js';
import { newEvent, uniqueStream } from '../../support/events.js';
import { until } from '../../support/until.js';

/** PostgreSQL only: other instances hear of appends by NOTIFY, which PGlite's one process never needs. */
describe('appends announced to other instances only (docs/decisions.md, "Read models")', function () {
  this.timeout(60_000);
  const scratch = onScratchPostgres();

  /** The listener connections that LISTEN on the log's channel, as every session sees them. */
  const logListeners = async (admin: pg.Client): Promise<number> =>
    (
      await admin.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'dss-listen % es_appended%'`,
      )
    ).rowCount ?? 0;

  it('an instance alone hears its own appends at once and sends no NOTIFY; once another listens, that one hears the next by notification', async () => {
    const t = scratch();
    // A plain session LISTENing sees every NOTIFY sent; it is no instance, so no one notifies for it.
    const spy = new pg.Client({ connectionString: t.url! });
    await spy.connect();
    const sent: string[] = [];
    spy.on('notification', (n) => sent.push(n.payload ?? ''));
    await spy.query('LISTEN es_appended');
    let audienceLooks = 0;
    const dbA = new PostgresDb(t.url!, { audienceTtlMs: 0, onQuery: (kind) => (kind === 'other' ? audienceLooks++ : undefined) });
    const dbB = new PostgresDb(t.url!);
    try {
      const a = await SqlEventStore.open(dbA);
      let heardA = 0;
      a.onAppended(() => heardA++);
      await until(async () => (await logListeners(spy)) === 1);

      const looksBefore = audienceLooks;
      await a.appendToStream(uniqueStream('alone'), [newEvent('Placed', {})], 'no_stream');
      expect(heardA).to.equal(1);
      // The append's notice looked for other listeners and found none.
      await until(() => audienceLooks > looksBefore);
      await new Promise((r) => setTimeout(r, 100));
      expect(sent).to.deep.equal([]);

      const b = await SqlEventStore.open(dbB);
      let heardB = 0;
      b.onAppended(() => heardB++);
      await until(async () => (await logListeners(spy)) === 2);
      await a.appendToStream(uniqueStream('heard'), [newEvent('Placed', {})], 'no_stream');
      await until(() => heardB === 1 && sent.length === 1);
      expect(heardA).to.equal(2);
    } finally {
      await spy.end();
      await dbB.close();
      await dbA.close();
    }
  });

  it('a database whose listeners cannot be looked at counts as listened to, so its notices are sent', async () => {
    const unreachable = new PostgresDb('postgres://postgres@127.0.0.1:1/none');
    try {
      expect(await unreachable.listenedElsewhere('es_appended')).to.equal(true);
    } finally {
      await unreachable.close();
    }
  });
});
