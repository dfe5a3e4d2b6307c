import { expect } from 'chai';
import pg from 'pg';
import { PostgresDb, type QueryKind } from '../../src/db/postgres-db.js';
import type { QueryResult, SqlDb } from '../../src/db/sql.js';
import { onScratchPostgres, openTestDatabase, type TestDatabase } from '../support/databases.js';

/** PostgreSQL only: PGlite runs in process, with no round trip or parse to save. */
describe('PostgresDb: statements prepared by name (docs/performance.md)', function () {
  this.timeout(60_000);
  let t: TestDatabase;
  /** One connection, so pg_prepared_statements (per session) shows what the pool prepared. */
  let db: PostgresDb;

  before(async function () {
    if (!process.env.DATABASE_URL) return this.skip();
    t = await openTestDatabase('postgres');
    db = new PostgresDb(t.url!, { max: 1 });
  });
  after(async () => {
    await db?.close();
    await t?.drop();
  });

  const prepared = async (text: string): Promise<number> =>
    Number(
      (await db.query<{ n: string }>('SELECT count(*)::text AS n FROM pg_prepared_statements WHERE statement = $1', [text])).rows[0]!.n,
    );

  it('a statement with parameters is parsed once per connection and then only run; one without stays a simple query of several statements', async () => {
    const text = 'SELECT $1::int * 2 AS doubled';
    for (const n of [1, 2, 3]) expect((await db.query<{ doubled: number }>(text, [n])).rows[0]!.doubled).to.equal(n * 2);
    await db.transaction(async (tx) => expect((await tx.query<{ doubled: number }>(text, [5])).rows[0]!.doubled).to.equal(10));
    expect(await prepared(text)).to.equal(1);
    await db.exec('CREATE TABLE two (n int); INSERT INTO two VALUES (1), (2)');
    expect((await db.query('SELECT n FROM two ORDER BY n')).rows).to.deep.equal([{ n: 1 }, { n: 2 }]);
  });

  it('a prepared statement follows its names to the tables they mean now, as after a rebuild swaps its schema in', async () => {
    await db.exec(`CREATE SCHEMA live; CREATE TABLE live.rows (v text); INSERT INTO live.rows VALUES ('old');
                   CREATE SCHEMA rebuilt; CREATE TABLE rebuilt.rows (v text); INSERT INTO rebuilt.rows VALUES ('new')`);
    const read = async () => (await db.query<{ v: string }>('SELECT v FROM live.rows WHERE v <> $1', [''])).rows.map((r) => r.v);
    expect(await read()).to.deep.equal(['old']);
    await db.exec('ALTER SCHEMA live RENAME TO retired; ALTER SCHEMA rebuilt RENAME TO live');
    expect(await read()).to.deep.equal(['new']);
  });

  it('past 500 distinct texts, further statements run unnamed and still answer', async () => {
    for (let i = 0; i < 520; i++) expect((await db.query<{ n: number }>(`SELECT $1::int + ${i} AS n`, [1])).rows[0]!.n).to.equal(1 + i);
    const count = Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM pg_prepared_statements', [])).rows[0]!.n);
    expect(count).to.be.at.most(500);
    expect(await prepared('SELECT $1::int + 519 AS n')).to.equal(0);
  });
});

describe('PostgresDb: statements outside a transaction share round trips (docs/performance.md)', function () {
  this.timeout(60_000);
  const scratch = onScratchPostgres();

  const backendOf = async (db: SqlDb): Promise<number> => (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

  it('those asked for in one turn go on one connection, and each answers its own caller, a failure only its own', async () => {
    const t = scratch();
    const asked = [
      backendOf(t.db),
      t.db.query<{ n: number }>('SELECT $1::int AS n', [1]),
      t.db.query('SELECT 1 / $1::int', [0]),
      backendOf(t.db),
      t.db.query<{ n: number }>('SELECT $1::int AS n', [2]),
    ];
    const [first, one, failed, second, two] = await Promise.allSettled(asked);
    expect(first).to.deep.equal(second);
    expect((one as PromiseFulfilledResult<QueryResult<{ n: number }>>).value.rows).to.deep.equal([{ n: 1 }]);
    expect(failed!.status).to.equal('rejected');
    expect(((failed as PromiseRejectedResult).reason as Error).message).to.match(/division by zero/);
    expect((two as PromiseFulfilledResult<QueryResult<{ n: number }>>).value.rows).to.deep.equal([{ n: 2 }]);
  });

  it('past eight in one turn, the rest go on another connection', async () => {
    const t = scratch();
    const pids = await Promise.all(Array.from({ length: 10 }, () => backendOf(t.db)));
    expect(new Set(pids.slice(0, 8)).size).to.equal(1);
    expect(new Set(pids).size).to.equal(2);
  });

  it('a connection lost mid-batch fails its statements with the loss, and the next statements answer on a new one', async () => {
    const t = scratch();
    // Ten times: the server's FATAL error and its closing of the socket arrive apart only some of the time.
    for (let i = 0; i < 10; i++) {
      const lost = backendOf(t.db);
      const sleeping = t.db.query('SELECT pg_sleep(30)').then(
        () => null,
        (e: unknown) => e as Error,
      );
      const pid = await lost;
      const admin = new pg.Client({ connectionString: t.url! });
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [pid]).finally(() => admin.end());
      expect((await sleeping)?.message).to.match(/terminat/);
      expect(await backendOf(t.db))
        .to.be.a('number')
        .and.not.equal(pid);
    }
  });
});

describe('PostgresDb: counts the queries it sends, by kind (db_queries_total)', function () {
  this.timeout(60_000);
  const scratch = onScratchPostgres();

  it('a query outside a transaction counts as autocommit; a transaction counts BEGIN (with its prelude), each statement, and COMMIT or ROLLBACK', async () => {
    const t = scratch();
    const counted: QueryKind[] = [];
    const db = new PostgresDb(t.url!, { onQuery: (kind) => counted.push(kind) });
    try {
      await db.query('SELECT $1::int AS n', [1]);
      expect(counted).to.deep.equal(['autocommit']);
      await db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await tx.query('SELECT 2');
      });
      expect(counted.slice(1)).to.deep.equal(['transaction', 'transaction', 'transaction', 'transaction']);
      await db.transaction((tx) => tx.query('SELECT 1 / 0')).catch(() => undefined);
      expect(counted.slice(5)).to.deep.equal(['transaction', 'transaction', 'transaction']);
      await db.exec('SELECT 1; SELECT 2');
      expect(counted.slice(8)).to.deep.equal(['other']);
      // A prelude travels in BEGIN's own message: one query sent, not two.
      await db.transaction((tx) => tx.query('SELECT 1'), { prelude: "SELECT set_config('search_path', 'public', true)" });
      expect(counted.slice(9)).to.deep.equal(['transaction', 'transaction', 'transaction']);
    } finally {
      await db.close();
    }
  });
});
