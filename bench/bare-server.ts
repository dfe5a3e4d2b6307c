/**
 * The bare HTTP limits (bench/limits.ts): the least a JSON-over-HTTP write service on this stack
 * does, as a plain express 5 + pg server would do it; no validation, events or logging.
 * - POST /events inserts the body as one row and answers 201 with the row's id; no auth.
 * - POST /keep is the least a keep can be: the bearer's session, the grant and the document's
 *   newest version in one read, then the copy's event, row and version in one statement of its own
 *   transaction, each statement prepared once per connection as the service's are; no token
 *   signature, decider, sealing, chain key, hash or read model beyond those.
 * Run as its own process (`node --import tsx bench/bare-server.ts`, DATABASE_URL and POOL_SIZE
 * set); prints `{"port":N,"session":"<bearer for /keep>"}` when listening.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import { exitWithParent } from './child-process.js';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_SIZE ?? 10),
  application_name: 'dss-bench-bare-server',
});
// An idle client that loses its server must not crash the process.
pool.on('error', () => undefined);
await pool.query('CREATE TABLE IF NOT EXISTS http_events (id bigserial PRIMARY KEY, stream text NOT NULL, data jsonb NOT NULL)');
await pool.query(`
  CREATE TABLE IF NOT EXISTS bare_sessions (session_id uuid PRIMARY KEY, organization_id uuid NOT NULL, revoked_at timestamptz);
  CREATE TABLE IF NOT EXISTS bare_documents (document_id uuid PRIMARY KEY, version int NOT NULL, sealed jsonb NOT NULL);
  CREATE TABLE IF NOT EXISTS bare_grants (
    grant_id bigint PRIMARY KEY, organization_id uuid NOT NULL, document_id uuid NOT NULL REFERENCES bare_documents,
    active boolean NOT NULL);
  CREATE TABLE IF NOT EXISTS bare_log (
    position bigserial PRIMARY KEY, stream_id text NOT NULL, revision bigint NOT NULL, type text NOT NULL, data jsonb NOT NULL,
    UNIQUE (stream_id, revision));
  CREATE TABLE IF NOT EXISTS bare_copies (copy_id uuid PRIMARY KEY, grant_id bigint NOT NULL, version int NOT NULL, sealed jsonb NOT NULL);
  CREATE TABLE IF NOT EXISTS bare_copy_versions (
    copy_id uuid NOT NULL, version int NOT NULL, sealed jsonb NOT NULL, PRIMARY KEY (copy_id, version));`);
const session = randomUUID();
const organization = randomUUID();
const document = randomUUID();
/** A sealed PersonFullName as the service stores one: cipher text, nonce and key id in base64. */
const SEALED = { alg: 'A256GCM', kid: randomUUID(), iv: 'x'.repeat(16), ct: 'x'.repeat(160), tag: 'x'.repeat(22) };
await pool.query('INSERT INTO bare_sessions VALUES ($1, $2, NULL)', [session, organization]);
await pool.query('INSERT INTO bare_documents VALUES ($1, 1, $2)', [document, SEALED]);
await pool.query('INSERT INTO bare_grants VALUES (1, $1, $2, true)', [organization, document]);

const GATE = `
  SELECT g.grant_id, d.version, d.sealed FROM bare_sessions s
  JOIN bare_grants g ON g.organization_id = s.organization_id AND g.grant_id = $2 AND g.active
  JOIN bare_documents d ON d.document_id = g.document_id
  WHERE s.session_id = $1 AND s.revoked_at IS NULL`;
const KEEP = `
  WITH event AS (INSERT INTO bare_log (stream_id, revision, type, data) VALUES ('copy-' || $1::uuid, 0, 'CopyKept', $4) RETURNING position),
  copy AS (INSERT INTO bare_copies VALUES ($1::uuid, $2, $3, $5))
  INSERT INTO bare_copy_versions VALUES ($1::uuid, $3, $5) RETURNING (SELECT position FROM event)`;

const app = express();
app.use(express.json());
app.post('/events', async (req, res) => {
  const body = req.body as unknown;
  if (typeof body !== 'object' || body === null) {
    res.status(400).json({ error: 'a JSON object' });
    return;
  }
  const stream = 'stream' in body && typeof body.stream === 'string' ? body.stream : 'bench';
  const r = await pool.query<{ id: string }>('INSERT INTO http_events (stream, data) VALUES ($1, $2) RETURNING id', [stream, body]);
  res.status(201).json({ id: r.rows[0]!.id });
});

app.post('/keep', async (req, res) => {
  const bearer = /^Bearer ([0-9a-f-]{36})$/.exec(req.get('authorization') ?? '')?.[1];
  const gate = bearer
    ? await pool.query<{ grant_id: string; version: number; sealed: unknown }>({ name: 'gate', text: GATE, values: [bearer, 1] })
    : null;
  const granted = gate?.rows[0];
  if (!granted) {
    res.status(404).json({ error: 'no such grant' });
    return;
  }
  const copyId = randomUUID();
  const event = { copyId, grantId: granted.grant_id, version: granted.version, sealed: granted.sealed };
  const kept = await pool.query<{ position: string }>({
    name: 'keep',
    text: KEEP,
    values: [copyId, granted.grant_id, granted.version, event, granted.sealed],
  });
  res.status(201).json({ copyId, version: granted.version, position: kept.rows[0]!.position });
});

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, session })}\n`);
});

exitWithParent(async () => {
  // Keep-alive connections from the load generator would hold close() open.
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await pool.end();
});
