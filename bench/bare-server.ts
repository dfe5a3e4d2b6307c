/**
 * The bare HTTP limits (bench/limits.ts): the least a JSON-over-HTTP write service on this stack
 * does, as a plain express 5 + pg server would do it; no validation, events or logging.
 * - POST /events inserts the body as one row and answers 201 with the row's id; no auth.
 * - POST /keep is the least a keep can be: the bearer's session, the grant and the document's
 *   newest version in one read, then the copy's event, row and version in one statement of its own
 *   transaction, each statement prepared once per connection as the service's are; no token
 *   signature, decider, sealing, chain key, hash or read model beyond those.
 * - POST /keep-after-token is that keep after the floor's authentication, as the service does it:
 *   an EdDSA token checked with jose (once per token text, as TokenVerifier keeps them), the
 *   session row in a statement of its own, then the grant and the document, then the keep. Its
 *   share of the organization token's floor is what this machine allows a keep (issue 48).
 * Run as its own process (`node --import tsx bench/bare-server.ts`, DATABASE_URL and POOL_SIZE
 * set); prints `{"port":N,"session":"<bearer for /keep>","token":"<bearer for /keep-after-token>"}`
 * when listening.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { generateKeyPair, jwtVerify, SignJWT } from 'jose';
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

/** The token /keep-after-token takes: the session's id as `sid`, as the service's tokens carry it. */
const ISSUER = 'http://bare.invalid';
const AUDIENCE = 'org';
const { privateKey, publicKey } = await generateKeyPair('EdDSA');
const token = await new SignJWT({ sid: session })
  .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
  .setIssuer(ISSUER)
  .setAudience(AUDIENCE)
  .setSubject(organization)
  .setIssuedAt()
  .setExpirationTime('2h')
  .sign(privateKey);
/** Tokens checked once, by their text: only the expiry is checked again (src/identity/tokens/verifier.ts). */
const verified = new Map<string, { sid: string; exp: number }>();

const GATE = `
  SELECT g.grant_id, d.version, d.sealed FROM bare_sessions s
  JOIN bare_grants g ON g.organization_id = s.organization_id AND g.grant_id = $2 AND g.active
  JOIN bare_documents d ON d.document_id = g.document_id
  WHERE s.session_id = $1 AND s.revoked_at IS NULL`;
const SESSION = 'SELECT organization_id FROM bare_sessions WHERE session_id = $1 AND revoked_at IS NULL';
const GRANT = `
  SELECT g.grant_id, d.version, d.sealed FROM bare_grants g JOIN bare_documents d ON d.document_id = g.document_id
  WHERE g.organization_id = $1 AND g.grant_id = $2 AND g.active`;
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
  const gate = bearer ? await pool.query<Granted>({ name: 'gate', text: GATE, values: [bearer, 1] }) : null;
  await keep(gate?.rows[0], res);
});

app.post('/keep-after-token', async (req, res) => {
  const sid = await sessionOf(/^Bearer (\S+)$/.exec(req.get('authorization') ?? '')?.[1]);
  const live = sid ? (await pool.query<{ organization_id: string }>({ name: 'session', text: SESSION, values: [sid] })).rows[0] : undefined;
  if (!live) {
    res.status(401).json({ error: 'no live session' });
    return;
  }
  const grant = await pool.query<Granted>({ name: 'grant', text: GRANT, values: [live.organization_id, 1] });
  await keep(grant.rows[0], res);
});

type Granted = { grant_id: string; version: number; sealed: unknown };

/** The copy's event, row and version in one statement, or 404 when nothing was granted. */
async function keep(granted: Granted | undefined, res: Response): Promise<void> {
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
}

/** The token's session id once its signature, issuer and audience were checked (once per text) and it has not expired. */
async function sessionOf(bearer: string | undefined): Promise<string | null> {
  if (!bearer) return null;
  let known = verified.get(bearer);
  if (!known) {
    try {
      const { payload } = await jwtVerify(bearer, publicKey, { algorithms: ['EdDSA'], typ: 'JWT', issuer: ISSUER, audience: AUDIENCE });
      if (typeof payload.sid !== 'string' || payload.exp === undefined) return null;
      known = { sid: payload.sid, exp: payload.exp };
      verified.set(bearer, known);
    } catch {
      return null;
    }
  }
  return Date.now() / 1000 < known.exp ? known.sid : null;
}

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, session, token })}\n`);
});

exitWithParent(async () => {
  // Keep-alive connections from the load generator would hold close() open.
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await pool.end();
});
