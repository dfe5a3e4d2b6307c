import { expect } from 'chai';
import { PostgresDb } from '../../src/db/postgres-db.js';
import { insertInto, updateOf } from '../../src/projections/set-based.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { planOf } from '../support/plans.js';
import { uuid } from '../support/projector-spec.js';

describe(`a table write in both forms: per event and for a run (${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;
  beforeEach(async () => {
    t = await openTestDatabase();
    await t.db.exec(`CREATE TABLE notes (id uuid PRIMARY KEY, body text NOT NULL, meta jsonb, at timestamptz NOT NULL)`);
  });
  afterEach(() => t.drop());

  const insert = insertInto('notes', ['id', 'body', 'meta', 'at']);
  const update = updateOf('notes', 'id', ['body', 'at']);
  const rows = async () =>
    (await t.db.query(`SELECT id::text, body, meta, to_char(at AT TIME ZONE 'UTC', 'HH24:MI') AS at FROM notes ORDER BY id`)).rows;
  const run = async (statements: readonly (readonly [string, readonly unknown[]])[]) => {
    for (const [text, values] of statements) await t.db.query(text, values);
  };

  it('a run of inserts and updates leaves the rows the same writes one by one leave: jsonb as JSON, the last update of a row', async () => {
    const written = [
      { id: uuid(1), body: 'first', meta: { tags: ['a', 'b'] }, at: '2026-01-01T09:00:00.000Z' },
      { id: uuid(2), body: 'second', meta: null, at: '2026-01-01T09:01:00.000Z' },
    ];
    const updates = [
      { id: uuid(1), body: 'first, edited', at: '2026-01-01T10:00:00.000Z' },
      { id: uuid(2), body: 'second, edited', at: '2026-01-01T10:01:00.000Z' },
      { id: uuid(1), body: 'first, edited again', at: '2026-01-01T11:00:00.000Z' },
    ];
    await run([...written.map((r) => insert.one(r)), ...updates.map((r) => update.one(r))]);
    const oneByOne = await rows();
    expect(oneByOne).to.deep.equal([
      { id: uuid(1), body: 'first, edited again', meta: { tags: ['a', 'b'] }, at: '11:00' },
      { id: uuid(2), body: 'second, edited', meta: null, at: '10:01' },
    ]);
    await t.db.exec('TRUNCATE notes');
    await run([...insert.many(written), ...update.many(updates)]);
    expect(await rows()).to.deep.equal(oneByOne);
  });

  it('an empty run writes nothing: no statement', () => {
    expect(insert.many([])).to.deep.equal([]);
    expect(update.many([])).to.deep.equal([]);
  });

  it("a run's update finds its rows through the table's index, even in a plan made for any run", async () => {
    await t.db.exec(`INSERT INTO notes SELECT gen_random_uuid(), 'x', NULL, now() FROM generate_series(1, 20000); ANALYZE notes`);
    // A few rows name their keys one by one, more go as an array: both plans stay on the index.
    for (const count of [2, 6]) {
      const run = Array.from({ length: count }, (_, i) => ({ id: uuid(i), body: 'y', at: '2026-01-01T10:00:00.000Z' }));
      const [[text, values]] = update.many(run) as [[string, unknown[]]];
      const literals = values.map((v) => (Array.isArray(v) ? `{${v.join(',')}}` : String(v)));
      const plan = await planOf(t.db, text, literals, { generic: true });
      expect(plan, `${count} rows`).to.match(/Index/);
      expect(plan, `${count} rows`).not.to.match(/Seq Scan on notes/);
    }
  });

  it("a run's update of a few rows (a group commit's proposals closed) is planned a few times on a connection, not at every run", async function () {
    if (!t.url) return this.skip(); // PostgreSQL's cached plans: PGlite runs the statements unnamed
    await t.db.exec(`INSERT INTO notes SELECT gen_random_uuid(), 'x', NULL, now() FROM generate_series(1, 20000); ANALYZE notes`);
    // One connection, so every run and the look at its prepared statements share it.
    const db = new PostgresDb(t.url, { max: 1 });
    try {
      for (let n = 0; n < 12; n++) {
        const run = [uuid(2 * n), uuid(2 * n + 1)].map((id) => ({ id, body: `run ${n}`, at: '2026-01-01T10:00:00.000Z' }));
        for (const [text, values] of update.many(run)) {
          await db.query(text, values);
        }
      }
      const plans = (
        await db.query<{ custom: number }>(
          `SELECT custom_plans::int AS custom FROM pg_prepared_statements WHERE statement LIKE 'UPDATE notes SET%'`,
        )
      ).rows;
      // Its keys as an array, two a run: the generic plan counted ten and lost to a custom plan at every run.
      expect(plans).to.have.length(1);
      expect(plans[0]!.custom).to.be.at.most(5);
    } finally {
      await db.close();
    }
  });
});
