import { expect } from 'chai';
import type { SqlExecutor } from '../../src/db/sql.js';
import { openTestDatabase, type TestDatabase } from '../support/databases.js';

const backends = ['pglite', ...(process.env.DATABASE_URL ? ['postgres' as const] : [])] as const;

for (const backend of backends) {
  describe(`SqlDb transactions: statements sent without waiting for each other (${backend})`, function () {
    this.timeout(60_000);
    let t: TestDatabase;

    before(async () => {
      t = await openTestDatabase(backend);
      await t.db.exec('CREATE TABLE marks (n int PRIMARY KEY, note text NOT NULL)');
    });
    after(async () => {
      await t?.drop();
    });
    beforeEach(async () => {
      await t.db.query('DELETE FROM marks');
    });

    const mark = (tx: SqlExecutor, n: number, note: string | null) => tx.query('INSERT INTO marks (n, note) VALUES ($1, $2)', [n, note]);
    const marks = async () => (await t.db.query<{ n: number }>('SELECT n FROM marks ORDER BY n')).rows.map((r) => r.n);

    it('run in the order sent, inside the transaction: a read sent last sees every write sent before it', async () => {
      const seen = await t.db.transaction(async (tx) => {
        const sent = [mark(tx, 1, 'a'), mark(tx, 2, 'b'), tx.query("UPDATE marks SET note = 'c' WHERE n = 1")];
        const read = tx.query<{ n: number; note: string }>('SELECT n, note FROM marks ORDER BY n');
        await Promise.all(sent);
        return (await read).rows;
      });
      expect(seen).to.deep.equal([
        { n: 1, note: 'c' },
        { n: 2, note: 'b' },
      ]);
      expect(await marks()).to.deep.equal([1, 2]);
    });

    it('one never awaited still belongs to the transaction: committed with it, or failing it at the commit', async () => {
      await t.db.transaction(async (tx) => {
        void mark(tx, 1, 'a');
        void mark(tx, 2, 'b');
      });
      expect(await marks()).to.deep.equal([1, 2]);
      const failed = await t.db
        .transaction(async (tx) => {
          void mark(tx, 3, 'c');
          void mark(tx, 4, null);
          void mark(tx, 5, 'e');
        })
        .catch((e: unknown) => e);
      expect((failed as { code?: string }).code).to.equal('23502');
      expect(await marks()).to.deep.equal([1, 2]);
    });

    it('a failure taken back by rolling back to a savepoint fails nothing: the rest commits', async () => {
      await t.db.transaction(async (tx) => {
        await tx.query('SAVEPOINT attempt');
        const refused = await mark(tx, 1, null).catch((e: unknown) => e);
        expect((refused as { code?: string }).code).to.equal('23502');
        await tx.query('ROLLBACK TO SAVEPOINT attempt');
        void mark(tx, 2, 'b');
      });
      expect(await marks()).to.deep.equal([2]);
    });

    it('one of them failing rolls the whole transaction back, and the first failure is the one answered', async () => {
      const failed = await t.db
        .transaction(async (tx) => {
          const sent = [mark(tx, 1, 'a'), mark(tx, 2, null), mark(tx, 3, 'c')];
          const outcomes = await Promise.allSettled(sent);
          const first = outcomes.find((o) => o.status === 'rejected');
          throw first?.reason;
        })
        .catch((e: unknown) => e);
      expect((failed as { code?: string }).code).to.equal('23502'); // not_null_violation, not "transaction aborted"
      expect(await marks()).to.deep.equal([]);
      // The connection is fit for the next transaction.
      await t.db.transaction((tx) => mark(tx, 4, 'd'));
      expect(await marks()).to.deep.equal([4]);
    });

    it('a prelude runs first inside the transaction (its settings last until the end); one that fails leaves nothing written', async () => {
      const seen = await t.db.transaction(
        async (tx) => {
          await mark(tx, 1, 'a');
          return (await tx.query<{ app: string }>("SELECT current_setting('application_name') AS app")).rows[0]!.app;
        },
        { prelude: "SELECT set_config('application_name', 'inside the prelude', true)" },
      );
      expect(seen).to.equal('inside the prelude');
      expect((await t.db.query<{ app: string }>("SELECT current_setting('application_name') AS app")).rows[0]!.app).to.not.equal(
        'inside the prelude',
      );
      const failed = await t.db.transaction((tx) => mark(tx, 2, 'b'), { prelude: 'SELECT 1 / 0' }).catch((e: unknown) => e);
      expect((failed as { code?: string }).code).to.equal('22012'); // division_by_zero
      expect(await marks()).to.deep.equal([1]);
    });
  });
}
