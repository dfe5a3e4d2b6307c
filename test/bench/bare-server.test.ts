import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { startScript, type BenchChild } from '../../bench/child-process.js';
import { adminQuery, databaseUrl } from '../../bench/scratch-database.js';

/**
 * Issue 48: the bare floor is the least an authenticated read can be on this stack, the bare keeps
 * the least a keep can be, the second after the bare floor's token and session check; its share of
 * the bare floor is the most a keep's share of its floor can be. Each must do what it is said to,
 * or that share says nothing: a keep written whole, and nothing answered without a live session.
 */
describe('bench bare server: the least floor and keep, alone and after a token check (issue 48)', function () {
  this.timeout(60_000);
  const url = process.env.DATABASE_URL;
  const name = `dss_test_bare_${randomBytes(4).toString('hex')}`;
  let server: BenchChild | undefined;
  let db: pg.Pool;
  let base: string;
  let started: { session: string; token: string; expired: string };

  before(async function () {
    if (!url) return this.skip(); // a PostgreSQL server: the bare server is plain node-postgres
    await adminQuery(url, `CREATE DATABASE ${name}`);
    db = new pg.Pool({ connectionString: databaseUrl(url, name), max: 1 });
    server = startScript('bench/bare-server.ts', { DATABASE_URL: databaseUrl(url, name), POOL_SIZE: '2' });
    const line = JSON.parse(await server.firstLine(30_000)) as { port: number; session: string; token: string; expired: string };
    base = `http://127.0.0.1:${line.port}`;
    started = line;
  });

  after(async () => {
    if (!url) return;
    await server?.stop();
    await db?.end();
    await adminQuery(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  const keep = (path: string, bearer: string) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${bearer}` } });
  const floor = (bearer: string) => fetch(`${base}/floor`, { headers: { authorization: `Bearer ${bearer}` } });
  const written = async () => {
    const counts = await db.query<{ events: number; copies: number; versions: number }>(
      `SELECT (SELECT count(*)::int FROM bare_log) AS events, (SELECT count(*)::int FROM bare_copies) AS copies,
              (SELECT count(*)::int FROM bare_copy_versions) AS versions`,
    );
    return counts.rows[0]!;
  };

  it("the bare floor answers the organization's key to its member token", async () => {
    const res = await floor(started.token);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.include({ kty: 'OKP', crv: 'X25519' });
  });

  it('a keep after a token check answers 201 with the copy, whose event, row and version it wrote', async () => {
    const before = await written();
    const res = await keep('/keep-after-token', started.token);
    expect(res.status).to.equal(201);
    const body = (await res.json()) as { copyId: string; version: number };
    expect(body.version).to.equal(1);
    expect(await written()).to.deep.equal({ events: before.events + 1, copies: before.copies + 1, versions: before.versions + 1 });
    const row = await db.query('SELECT grant_id FROM bare_copies WHERE copy_id = $1', [body.copyId]);
    expect(row.rowCount).to.equal(1);
  });

  it("a token whose signature does not verify, an expired one, the bare keep's session id: 401, nothing kept", async () => {
    const before = await written();
    const [header, payload, signature] = started.token.split('.');
    const flipped = `${header}.${payload}.${signature!.startsWith('A') ? 'B' : 'A'}${signature!.slice(1)}`;
    for (const bearer of [flipped, started.expired, started.session]) {
      expect((await keep('/keep-after-token', bearer)).status).to.equal(401);
      expect((await floor(bearer)).status).to.equal(401);
    }
    expect(await written()).to.deep.equal(before);
  });

  // Last: it revokes the one session the others use.
  it('once the session is revoked, neither keep keeps and the floor answers 401: the session is read on every request', async () => {
    expect((await keep('/keep-after-token', started.token)).status).to.equal(201);
    expect((await keep('/keep', started.session)).status).to.equal(201);
    await db.query('UPDATE bare_sessions SET revoked_at = now()');
    const before = await written();
    expect((await keep('/keep-after-token', started.token)).status).to.equal(401);
    expect((await keep('/keep', started.session)).status).to.equal(404);
    expect((await floor(started.token)).status).to.equal(401);
    expect(await written()).to.deep.equal(before);
  });
});
