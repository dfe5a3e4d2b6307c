import { expect } from 'chai';
import { joinedStatements } from '../../src/db/one-statement.js';
import type { Statement } from '../../src/db/sql.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';

describe(`independent writes joined as one statement (${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;
  before(async () => {
    t = await openTestDatabase();
    await t.db.exec(`CREATE TABLE a (n int PRIMARY KEY, note text); CREATE TABLE b (n int, note text); CREATE TABLE c (n int)`);
  });
  after(() => t.drop());
  beforeEach(() => t.db.exec('TRUNCATE a, b, c'));

  const run = async (statements: readonly Statement[]) => {
    const joined = joinedStatements(statements);
    await t.db.transaction(async (tx) => {
      for (const { statement } of joined) await tx.query(...statement);
    });
    return joined;
  };
  const rows = async (table: string) => (await t.db.query(`SELECT * FROM ${table} ORDER BY n`)).rows;

  it('inserts, updates and upserts into different tables go as one statement, each with its own parameters', async () => {
    await t.db.query(`INSERT INTO a VALUES (1, 'old')`);
    const joined = await run([
      ['UPDATE a SET note = $2 WHERE n = $1', [1, 'new']],
      [
        'INSERT INTO b (n, note) SELECT * FROM unnest($1::int[], $2::text[])',
        [
          [7, 8],
          ['x', 'y'],
        ],
      ],
      ['INSERT INTO c (n) VALUES ($1)', [3]],
    ]);
    expect(joined.map((j) => j.parts)).to.deep.equal([[0, 1, 2]]);
    expect(await rows('a')).to.deep.equal([{ n: 1, note: 'new' }]);
    expect(await rows('b')).to.deep.equal([
      { n: 7, note: 'x' },
      { n: 8, note: 'y' },
    ]);
    expect(await rows('c')).to.deep.equal([{ n: 3 }]);
  });

  it("a statement with its own WITH ends the joined one, which takes the others into that WITH's list", async () => {
    const joined = await run([
      ['INSERT INTO c (n) VALUES ($1)', [1]],
      ['WITH input AS (SELECT * FROM unnest($1::int[]) AS n) INSERT INTO a (n, note) SELECT n, $2 FROM input', [[4, 5], 'w']],
      ['WITH input AS (SELECT $1::int AS n) INSERT INTO b (n) SELECT n FROM input', [6]],
    ]);
    expect(joined.map((j) => j.parts)).to.deep.equal([[0, 1], [2]]);
    expect(await rows('a')).to.deep.equal([
      { n: 4, note: 'w' },
      { n: 5, note: 'w' },
    ]);
    expect(await rows('b')).to.deep.equal([{ n: 6, note: null }]);
    expect(await rows('c')).to.deep.equal([{ n: 1 }]);
  });

  it('a joined statement joins again, as the main statement of another', async () => {
    const inner = joinedStatements([
      ['INSERT INTO a (n, note) VALUES ($1, $2)', [1, 'inner']],
      ['INSERT INTO b (n) VALUES ($1)', [2]],
    ]);
    const joined = await run([['INSERT INTO c (n) VALUES ($1)', [3]], inner[0]!.statement]);
    expect(joined.map((j) => j.parts)).to.deep.equal([[0, 1]]);
    expect([await rows('a'), await rows('b'), await rows('c')]).to.deep.equal([
      [{ n: 1, note: 'inner' }],
      [{ n: 2, note: null }],
      [{ n: 3 }],
    ]);
  });

  it('a $n inside a quoted string or name stays as written; a dollar-quoted statement goes alone', async () => {
    const joined = await run([
      [`INSERT INTO b (n, note) VALUES ($1, '$1 it''s')`, [1]],
      [`INSERT INTO b ("n", note) VALUES ($1, $2) -- $9`, [2, 'two']],
      [`INSERT INTO b (n, note) VALUES ($1, $$ $2 $$)`, [3]],
    ]);
    expect(joined.map((j) => j.parts)).to.deep.equal([[2], [0, 1]]);
    expect(await rows('b')).to.deep.equal([
      { n: 1, note: "$1 it's" },
      { n: 2, note: 'two' },
      { n: 3, note: ' $2 ' },
    ]);
  });

  it('a refusal of one part refuses the whole statement: none of its writes stays', async () => {
    await t.db.query(`INSERT INTO a VALUES (1, 'taken')`);
    const joined = joinedStatements([
      ['INSERT INTO c (n) VALUES ($1)', [1]],
      ['INSERT INTO a (n, note) VALUES ($1, $2)', [1, 'again']],
    ]);
    expect(joined).to.have.length(1);
    const refused = await t.db.query(...joined[0]!.statement).catch((e: unknown) => e);
    expect(refused).to.include({ code: '23505', table: 'a' });
    expect(await rows('c')).to.deep.equal([]);
  });
});
