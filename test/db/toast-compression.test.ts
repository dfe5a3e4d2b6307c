import { expect } from 'chai';
import pg from 'pg';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { consentReceiptsProjector } from '../../src/projections/consent-receipts/consent-receipts.js';
import { installReadModels } from '../../src/projections/read-model-schema.js';
import { openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent, uniqueStream } from '../support/events.js';

/** A value long and repetitive enough that PostgreSQL compresses it (over about 2 kB). */
const long = (tag: string) => `${tag}.${'eyJhbGciOiJFZERTQSJ9'.repeat(400)}`;

/** PostgreSQL only: PGlite is built without lz4. */
describe('large values the service writes go compressed with lz4 on a server built with it (docs/decisions.md, "Read models")', function () {
  this.timeout(60_000);
  let t: TestDatabase;

  before(async function () {
    if (!process.env.DATABASE_URL) return this.skip();
    t = await openTestDatabase('postgres');
  });
  after(() => t?.drop());

  const compression = async (sql: string): Promise<string | null> => (await t.db.query<{ c: string | null }>(sql)).rows[0]!.c;

  it('a consent receipt’s JWS in the read models and a receipt event’s data in the log are stored lz4 and read back as written; written by another client, pglz', async () => {
    const store = await SqlEventStore.open(t.db);
    await installReadModels(t.db, [consentReceiptsProjector], 'rm');
    const insert = `INSERT INTO rm.consent_receipts (request_id, seq, receipt_id, issued_at, cause_type, status, jws)
                    VALUES (gen_random_uuid(), $1, gen_random_uuid(), now(), 'RequestAccepted', 'dpv:ConsentGiven', $2)`;
    const jws = long('receipt');
    await t.db.query(insert, [1, jws]);
    const event = newEvent('ConsentReceiptIssued', { jws });
    await store.appendToStream(uniqueStream('receipts'), [event], 'no_stream');
    // The server's own default, which the service's connections change for themselves only.
    const other = new pg.Client({ connectionString: t.url! });
    await other.connect();
    await other.query(insert, [2, long('elsewhere')]).finally(() => other.end());

    const of = (seq: number) => `SELECT pg_column_compression(jws) AS c FROM rm.consent_receipts WHERE seq = ${seq}`;
    expect([await compression(of(1)), await compression(of(2))]).to.deep.equal(['lz4', 'pglz']);
    expect((await t.db.query<{ jws: string }>('SELECT jws FROM rm.consent_receipts WHERE seq = 1')).rows[0]!.jws).to.equal(jws);
    expect(
      await compression(`SELECT pg_column_compression(data) AS c FROM es.events WHERE event_id = '${event.metadata.eventId}'`),
    ).to.equal('lz4');
    const read = await store.readAll({ maxCount: 10 });
    expect(read.find((e) => e.metadata.eventId === event.metadata.eventId)?.data).to.deep.equal({ jws });
  });

  it('a column set EXTERNAL (kept uncompressed on purpose) stays uncompressed', async () => {
    await t.db.exec(`CREATE SCHEMA lz4_spec; CREATE TABLE lz4_spec.blobs (id int PRIMARY KEY, sealed text);
                     ALTER TABLE lz4_spec.blobs ALTER COLUMN sealed SET STORAGE EXTERNAL`);
    await t.db.query('INSERT INTO lz4_spec.blobs (id, sealed) VALUES (1, $1)', [long('sealed')]);
    expect(await compression('SELECT pg_column_compression(sealed) AS c FROM lz4_spec.blobs')).to.equal(null);
  });
});
