import { expect } from 'chai';
import { compressWithLz4 } from '../../src/db/toast-compression.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { consentReceiptsProjector } from '../../src/projections/consent-receipts/consent-receipts.js';
import { installReadModels } from '../../src/projections/read-model-schema.js';
import { openSecondConnection, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent, uniqueStream } from '../support/events.js';

/** A value long and repetitive enough that PostgreSQL compresses it (over about 2 kB). */
const long = (tag: string) => `${tag}.${'eyJhbGciOiJFZERTQSJ9'.repeat(400)}`;

/** PostgreSQL only: PGlite is built without lz4, and its tables keep the default. */
describe('large values compressed with lz4 on a server built with it (docs/decisions.md, "Read models")', function () {
  this.timeout(60_000);
  let t: TestDatabase;

  before(async function () {
    if (!process.env.DATABASE_URL) return this.skip();
    t = await openTestDatabase('postgres');
  });
  after(() => t?.drop());

  const compression = async (sql: string): Promise<string | null> => (await t.db.query<{ c: string | null }>(sql)).rows[0]!.c;

  it('a consent receipt’s JWS in the read models and a receipt event’s data in the log are stored lz4, and read back as written', async () => {
    const store = await SqlEventStore.open(t.db);
    await installReadModels(t.db, [consentReceiptsProjector], 'rm');
    const jws = long('receipt');
    await t.db.query(
      `INSERT INTO rm.consent_receipts (request_id, seq, receipt_id, issued_at, cause_type, status, jws)
       VALUES (gen_random_uuid(), 1, gen_random_uuid(), now(), 'RequestAccepted', 'dpv:ConsentGiven', $1)`,
      [jws],
    );
    const event = newEvent('ConsentReceiptIssued', { jws });
    await store.appendToStream(uniqueStream('receipts'), [event], 'no_stream');

    expect(await compression('SELECT pg_column_compression(jws) AS c FROM rm.consent_receipts')).to.equal('lz4');
    expect((await t.db.query<{ jws: string }>('SELECT jws FROM rm.consent_receipts')).rows[0]!.jws).to.equal(jws);
    const logged = `SELECT pg_column_compression(data) AS c FROM es.events WHERE event_id = '${event.metadata.eventId}'`;
    expect(await compression(logged)).to.equal('lz4');
    expect((await store.readAll({ maxCount: 10 })).find((e) => e.metadata.eventId === event.metadata.eventId)?.data).to.deep.equal({ jws });
  });

  it('leaves a column set EXTERNAL (kept uncompressed on purpose) as it is', async () => {
    await t.db.exec(`CREATE SCHEMA lz4_spec; CREATE TABLE lz4_spec.blobs (id int PRIMARY KEY, sealed text, label text);
                     ALTER TABLE lz4_spec.blobs ALTER COLUMN sealed SET STORAGE EXTERNAL`);
    await compressWithLz4(t.db, 'lz4_spec');
    const settings = await t.db.query(
      `SELECT attname, attstorage, attcompression FROM pg_attribute
       WHERE attrelid = 'lz4_spec.blobs'::regclass AND attnum > 0 ORDER BY attnum`,
    );
    expect(settings.rows).to.deep.equal([
      { attname: 'id', attstorage: 'p', attcompression: '' },
      { attname: 'sealed', attstorage: 'e', attcompression: '' },
      { attname: 'label', attstorage: 'x', attcompression: 'l' },
    ]);
  });

  it('an instance starting once the read models’ columns are lz4 alters nothing, so it waits for no lock a running instance holds', async () => {
    await installReadModels(t.db, [consentReceiptsProjector], 'rm');
    const running = openSecondConnection(t);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let holding!: () => void;
    const held = new Promise<void>((r) => (holding = r));
    const reading = running.transaction(async (tx) => {
      await tx.query('SELECT count(*) FROM rm.consent_receipts');
      holding();
      await released;
    });
    try {
      await held;
      const started = installReadModels(t.db, [consentReceiptsProjector], 'rm');
      const waited = await Promise.race([started.then(() => false), new Promise((r) => setTimeout(() => r(true), 3000))]);
      expect(waited, 'the start waited behind a running reader').to.equal(false);
    } finally {
      release();
      await reading;
      await running.close();
    }
  });
});
