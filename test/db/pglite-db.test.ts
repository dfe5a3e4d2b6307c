import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PgliteDb } from '../../src/db/pglite-db.js';

describe('PgliteDb: a queue of statements leaves the event loop its turns (docs/decisions.md, Embedded fairness)', function () {
  this.timeout(60_000);
  let db: PgliteDb;
  let server: Server;
  let url: string;

  before(async () => {
    db = await PgliteDb.open();
    server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await db.close();
  });

  it('a new connection is answered while 40 callers each run 25 statements and transactions, not after all of them', async () => {
    let finished = 0;
    const callers = Array.from({ length: 40 }, async () => {
      for (let i = 0; i < 25; i++) {
        if (i % 5 === 0) await db.transaction(async (tx) => tx.query('SELECT count(*) FROM generate_series(1, 2000)'));
        else await db.query('SELECT count(*) FROM generate_series(1, 2000)');
      }
      finished++;
    });
    const answer = await fetch(url);
    const finishedWhenAnswered = finished;
    expect(await answer.text()).to.equal('ok');
    await Promise.all(callers);
    expect(finished).to.equal(40);
    expect(finishedWhenAnswered, 'callers done when the new connection had its answer').to.be.lessThan(10);
  });
});
