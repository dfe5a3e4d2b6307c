import { expect } from 'chai';
import { benchPublish } from '../../bench/publish.js';
import { openTestDatabase, type TestDatabase } from '../support/databases.js';

describe('embedded bench: publishes and token checks answered, none refused (docs/performance.md, Reproduce)', function () {
  this.timeout(60_000);
  let t: TestDatabase;

  before(async () => {
    t = await openTestDatabase('pglite');
  });
  after(async () => {
    await t?.drop();
  });

  it('one token publishing and checking itself from 8 connections meets no fair-use or validation limit and no GraphQL error', async () => {
    const rows = await benchPublish(t.db, { seconds: 1, clients: [8] });
    expect(rows.map((r) => [r.name, r.errors])).to.deep.equal([
      ['document publish (GraphQL update)', 0],
      ['token check (GraphQL user.me)', 0],
    ]);
    for (const r of rows) expect(r.count, r.name).to.be.greaterThan(20);
  });
});
