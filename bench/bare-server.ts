/**
 * The bare HTTP limits (bench/limits.ts): the least a JSON-over-HTTP write service on this stack
 * does, as a plain express 5 + pg server would do it; no validation, events or logging.
 * - POST /events inserts the body as one row and answers 201 with the row's id; no auth.
 * - POST /keep is the least a keep can be: the bearer's session, the grant and the document's
 *   newest version in one read, then the copy's event, row and version in one statement of its own
 *   transaction, each statement prepared once per connection as the service's are; no token
 *   signature, decider, sealing, chain key, hash or read model beyond those.
 * - GET /floor is the bare floor, the service's GET /org/v1/key without its middleware: a member
 *   token checked as the service checks one (an EdDSA JWT verified with jose once per token text,
 *   as TokenVerifier keeps them, its expiry every time), then the service's statement shape for
 *   the session check (the session live and unexpired, its identity there, the membership still
 *   the token's), then one row read.
 * - POST /keep-after-token is the bare keep after the bare floor's token and session check: then
 *   the grant and the document, then the keep. Its share of the bare floor is the most a keep's
 *   share of its floor can be on this machine (issue 48).
 * Run as its own process (`node --import tsx bench/bare-server.ts`, DATABASE_URL and POOL_SIZE
 * set); prints `{"port":N,"session":"<bearer for /keep>","token":"<member token>","expired":"<the
 * same, expired>"}` when listening.
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
  CREATE TABLE IF NOT EXISTS bare_identities (identity_id uuid PRIMARY KEY, registered_at timestamptz);
  CREATE TABLE IF NOT EXISTS bare_sessions (
    session_id uuid PRIMARY KEY, organization_id uuid NOT NULL, identity_id uuid NOT NULL REFERENCES bare_identities,
    expires_at timestamptz NOT NULL, revoked_at timestamptz);
  CREATE TABLE IF NOT EXISTS bare_members (
    organization_id uuid NOT NULL, email text NOT NULL, membership_id uuid NOT NULL, permissions text[] NOT NULL,
    PRIMARY KEY (organization_id, email));
  CREATE TABLE IF NOT EXISTS bare_keys (organization_id uuid PRIMARY KEY, public_key jsonb NOT NULL);
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
const identity = randomUUID();
const organization = randomUUID();
const membership = randomUUID();
const EMAIL = 'member@bare.invalid';
const document = randomUUID();
/** A sealed PersonFullName as the service stores one: cipher text, nonce and key id in base64. */
const SEALED = { alg: 'A256GCM', kid: randomUUID(), iv: 'x'.repeat(16), ct: 'x'.repeat(160), tag: 'x'.repeat(22) };
/** An organization's public key as GET /org/v1/key answers it. */
const PUBLIC_KEY = { kty: 'OKP', crv: 'X25519', x: 'x'.repeat(43), kid: randomUUID() };
await pool.query('INSERT INTO bare_identities VALUES ($1, now())', [identity]);
await pool.query("INSERT INTO bare_sessions VALUES ($1, $2, $3, now() + interval '2 hours', NULL)", [session, organization, identity]);
await pool.query("INSERT INTO bare_members VALUES ($1, $2, $3, '{manage_requests}')", [organization, EMAIL, membership]);
await pool.query('INSERT INTO bare_keys VALUES ($1, $2)', [organization, PUBLIC_KEY]);
await pool.query('INSERT INTO bare_documents VALUES ($1, 1, $2)', [document, SEALED]);
await pool.query('INSERT INTO bare_grants VALUES (1, $1, $2, true)', [organization, document]);

/** A member token's claims, as the service's carry them: the session, the identity, the organization and the membership. */
type Claims = { sid: string; sub: string; org: string; email: string; mid: string; exp: number };
const ISSUER = 'http://bare.invalid';
const AUDIENCE = 'org';
const { privateKey, publicKey } = await generateKeyPair('EdDSA');
const memberToken = (expires: number | string) =>
  new SignJWT({ sid: session, org: organization, email: EMAIL, mid: membership })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(identity)
    .setIssuedAt()
    .setExpirationTime(expires)
    .sign(privateKey);
const token = await memberToken('2h');
const expired = await memberToken(Math.floor(Date.now() / 1000) - 60);
/** Tokens checked once, by their text: only the expiry is checked again (src/identity/tokens/verifier.ts). */
const verified = new Map<string, Claims>();

const GATE = `
  SELECT g.grant_id, d.version, d.sealed FROM bare_sessions s
  JOIN bare_grants g ON g.organization_id = s.organization_id AND g.grant_id = $2 AND g.active
  JOIN bare_documents d ON d.document_id = g.document_id
  WHERE s.session_id = $1 AND s.revoked_at IS NULL`;
/** The service's member session check (src/identity/identity-queries.ts, liveMemberSession), on the bare tables. */
const MEMBER_SESSION = `
  SELECT i.registered_at IS NOT NULL AS registered, m.permissions FROM bare_sessions s
  JOIN bare_identities i ON i.identity_id = s.identity_id
  LEFT JOIN bare_members m ON m.organization_id = $4 AND m.email = $5 AND m.membership_id = $6
  WHERE s.session_id = $1 AND s.identity_id = $2 AND s.revoked_at IS NULL AND s.expires_at > $3`;
const KEY = 'SELECT public_key FROM bare_keys WHERE organization_id = $1';
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

app.get('/floor', async (req, res) => {
  const member = await memberOf(req.get('authorization'));
  if (!member) {
    res.status(401).json({ error: 'no live member session' });
    return;
  }
  const key = await pool.query<{ public_key: unknown }>({ name: 'key', text: KEY, values: [member.org] });
  res.json(key.rows[0]?.public_key ?? null);
});

app.post('/keep-after-token', async (req, res) => {
  const member = await memberOf(req.get('authorization'));
  if (!member) {
    res.status(401).json({ error: 'no live member session' });
    return;
  }
  const grant = await pool.query<Granted>({ name: 'grant', text: GRANT, values: [member.org, 1] });
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

/**
 * The bearer's claims once its signature, issuer and audience were checked (once per token text)
 * and it has not expired, and its session is live with its membership still the token's.
 */
async function memberOf(authorization: string | undefined): Promise<Claims | null> {
  const bearer = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  if (!bearer) return null;
  let claims = verified.get(bearer);
  if (!claims) {
    try {
      const { payload } = await jwtVerify(bearer, publicKey, { algorithms: ['EdDSA'], typ: 'JWT', issuer: ISSUER, audience: AUDIENCE });
      const { sid, sub, org, email, mid, exp } = payload;
      const texts = typeof sid === 'string' && typeof sub === 'string' && typeof org === 'string' && typeof email === 'string';
      if (!texts || typeof mid !== 'string' || exp === undefined) return null;
      claims = { sid, sub, org, email, mid, exp };
      verified.set(bearer, claims);
    } catch {
      return null;
    }
  }
  const now = new Date();
  if (now.getTime() / 1000 >= claims.exp) return null;
  const values = [claims.sid, claims.sub, now, claims.org, claims.email, claims.mid];
  const live = await pool.query<{ registered: boolean; permissions: string[] | null }>({ name: 'member', text: MEMBER_SESSION, values });
  const row = live.rows[0];
  return row?.registered && row.permissions ? claims : null;
}

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, session, token, expired })}\n`);
});

exitWithParent(async () => {
  // Keep-alive connections from the load generator would hold close() open.
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await pool.end();
});
