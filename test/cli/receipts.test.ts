import { expect } from 'chai';
import { CompactSign, exportJWK, generateKeyPair, type JWK } from 'jose';
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ISSUER = 'https://share.example.com';

type Ran = { readonly code: number | null; readonly stdout: string; readonly stderr: string };
type Json = Record<string, unknown>;

/** dss as test/cli/dss.test.ts runs it, from the source, stdout a pipe; no config and no DSS_URL unless given. */
function dss(args: readonly string[], options: { env?: Record<string, string>; stdin?: string } = {}): Promise<Ran> {
  const env: NodeJS.ProcessEnv = { ...process.env, DSS_CONFIG: join(dir, 'absent-config.json'), ...options.env };
  if (!options.env?.DSS_URL) delete env.DSS_URL;
  const child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', 'cli/src/main.ts', ...args], { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end(options.stdin ?? '');
  return new Promise<Ran>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const parse = (stdout: string): Json[] =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Json);

type Key = { readonly kid: string; readonly privateKey: CryptoKey; readonly jwk: JWK };

async function key(kid: string): Promise<Key> {
  const { publicKey, privateKey } = await generateKeyPair('Ed25519');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' } };
}

/** n receipts of one request as docs/receipts.md specifies them, each naming the SHA-256 of the one before. */
async function chain(n: number, request: string, by: Key, iss = ISSUER): Promise<string[]> {
  const receipts: string[] = [];
  for (let seq = 1; seq <= n; seq++) {
    const payload = {
      iss,
      jti: randomUUID(),
      iat: 1764403200 + seq,
      request,
      seq,
      prev: seq === 1 ? null : createHash('sha256').update(receipts.at(-1)!, 'ascii').digest('base64url'),
      event: { id: randomUUID(), type: seq === 1 ? 'RequestAccepted' : 'SlotGranted', at: new Date().toISOString() },
      status: 'dpv:ConsentGiven',
      controller: { id: randomUUID(), name: 'Acme Bank' },
      purpose: 'To open your account',
      retention: 'P90D',
      manifest: { id: randomUUID(), version: 1 },
      initiatedBy: 'org',
      app: null,
      slots: [{ id: 'name', label: 'Your legal name', status: 'dpv:ConsentGiven', records: [] }],
    };
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'EdDSA', typ: 'consent-receipt+jwt', kid: by.kid })
      .sign(by.privateKey);
    receipts.push(jws);
  }
  return receipts;
}

/** A receipts file as GET /org/v1/requests/{requestId}/receipts answers it. */
const fileOf = (issuer: string | undefined, requestId: string, receipts: readonly string[]) => ({
  ...(issuer === undefined ? {} : { issuer }),
  requestId,
  receipts: receipts.map((jws, i) => ({
    seq: i + 1,
    receiptId: randomUUID(),
    issuedAt: new Date().toISOString(),
    event: 'x',
    status: 'y',
    jws,
  })),
});

/** The payload edited and encoded again, the signature kept. */
function edited(jws: string): string {
  const [header, payload, signature] = jws.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Json;
  return [header, Buffer.from(JSON.stringify({ ...claims, retention: 'P100Y' })).toString('base64url'), signature].join('.');
}

let dir: string;

describe('dss receipts verify: a receipts file checked offline (docs/cli.md, docs/receipts.md)', function () {
  this.timeout(60_000);
  let signing: Key;
  const request = randomUUID();
  let receipts: string[];
  let file: string;
  let jwks: string;
  let write: (name: string, value: unknown) => Promise<string>;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dss-receipts-'));
    write = async (name, value) => {
      const path = join(dir, name);
      await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
      return path;
    };
    signing = await key('receipts-1');
    receipts = await chain(5, request, signing);
    file = await write('receipts.json', fileOf(ISSUER, request, receipts));
    jwks = await write('jwks.json', { keys: [signing.jwk] });
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a good file verifies with --jwks: exit 0 and one line saying so (text), or one JSON object through a pipe', async () => {
    const text = await dss(['receipts', 'verify', file, '--jwks', jwks, '--output', 'text']);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stderr).to.equal('');
    expect(text.stdout).to.equal(
      `5 receipts of request ${request} verify: signatures and chain, first to last (issuer ${ISSUER}, keys from ${jwks})\n`,
    );

    const piped = await dss(['receipts', 'verify', file, '--jwks', jwks]);
    expect(piped.code, piped.stderr).to.equal(0);
    expect(parse(piped.stdout)).to.deep.equal([
      { ok: true, count: 5, issuer: ISSUER, request, seq: 5, status: 'dpv:ConsentGiven', keys: jwks },
    ]);
  });

  it('a file of plain JWS strings, read from stdin, verifies too', async () => {
    const ran = await dss(['receipts', 'verify', '-', '--jwks', jwks], { stdin: JSON.stringify({ receipts }) });
    expect(ran.code, ran.stderr).to.equal(0);
    expect(parse(ran.stdout)).to.have.length(1).and.to.have.nested.property('[0].count', 5);
  });

  it('a tampered receipt exits 4 naming it: index, seq, reason and the sentence, on stderr; the verdict on stdout through a pipe', async () => {
    const tampered = await write(
      'tampered.json',
      fileOf(
        ISSUER,
        request,
        receipts.map((r, i) => (i === 2 ? edited(r) : r)),
      ),
    );
    const ran = await dss(['receipts', 'verify', tampered, '--jwks', jwks]);
    expect(ran.code).to.equal(4);
    expect(ran.stderr).to.equal(
      'dss: not_verified: receipt 3 (seq 3): its signature does not verify with key "receipts-1" (index 2, reason signature)\n',
    );
    expect(parse(ran.stdout)).to.deep.equal([
      {
        ok: false,
        index: 2,
        seq: 3,
        reason: 'signature',
        message: 'receipt 3 (seq 3): its signature does not verify with key "receipts-1"',
      },
    ]);

    const text = await dss(['receipts', 'verify', tampered, '--jwks', jwks, '--output', 'text']);
    expect(text.code).to.equal(4);
    expect(text.stdout).to.equal('');
    expect(text.stderr).to.contain('receipt 3 (seq 3)');
  });

  it('a removed receipt exits 4 at the one after the gap', async () => {
    const gap = await write('gap.json', fileOf(ISSUER, request, receipts.toSpliced(1, 1)));
    const ran = await dss(['receipts', 'verify', gap, '--jwks', jwks, '--output', 'text']);
    expect(ran.code).to.equal(4);
    expect(ran.stderr).to.match(/^dss: not_verified: receipt 2 \(seq 3\): .* \(index 1, reason (sequence|chain)\)\n$/);
  });

  it('a key the --jwks file does not hold exits 4 with unknown_key', async () => {
    const other = await write('other-jwks.json', { keys: [(await key('receipts-2')).jwk] });
    const ran = await dss(['receipts', 'verify', file, '--jwks', other]);
    expect(ran.code).to.equal(4);
    expect(parse(ran.stdout)).to.have.nested.property('[0].reason', 'unknown_key');
  });

  describe('without --jwks, the keys come from {issuer}/.well-known/jwks.json', () => {
    let server: Server;
    let origin: string;
    let served: Json;
    const asked: string[] = [];

    before(async () => {
      server = createServer((req, res) => {
        asked.push(req.url ?? '');
        if (req.url === '/.well-known/jwks.json') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served));
        else res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("the file's issuer serves them: exit 0", async () => {
      served = { keys: [signing.jwk] };
      const own = await chain(3, request, signing, origin);
      const path = await write('served.json', fileOf(origin, request, own));
      asked.length = 0;
      const ran = await dss(['receipts', 'verify', path, '--output', 'text']);
      expect(ran.code, ran.stderr).to.equal(0);
      expect(asked).to.deep.equal(['/.well-known/jwks.json']);
      expect(ran.stdout).to.contain(`3 receipts of request ${request} verify`).and.to.contain(`keys from ${origin}/.well-known/jwks.json`);
    });

    it("receipts that name another iss than the file's issuer, whose keys were fetched, exit 4 with reason issuer", async () => {
      const impostor = await key('receipts-1');
      served = { keys: [impostor.jwk] };
      const forged = await chain(3, request, impostor, ISSUER);
      const path = await write('forged.json', fileOf(origin, request, forged));
      const ran = await dss(['receipts', 'verify', path]);
      expect(ran.code).to.equal(4);
      expect(parse(ran.stdout)[0]).to.include({ ok: false, index: 0, seq: 1, reason: 'issuer' });
      expect(ran.stderr).to.contain(`its iss is "${ISSUER}", not "${origin}"`);
    });

    it('a file without an issuer takes the configured service (DSS_URL); with neither, exit 2', async () => {
      served = { keys: [signing.jwk] };
      const own = await chain(2, request, signing, origin);
      const path = await write('no-issuer.json', fileOf(undefined, request, own));
      const ran = await dss(['receipts', 'verify', path], { env: { DSS_URL: origin } });
      expect(ran.code, ran.stderr).to.equal(0);
      expect(parse(ran.stdout)).to.have.nested.property('[0].count', 2);

      const none = await dss(['receipts', 'verify', path]);
      expect(none.code).to.equal(2);
      expect(none.stderr).to.match(/^dss: usage: the file names no issuer: pass --jwks <file>/);
    });

    it('an issuer that does not serve its keys exits 4 (a 4xx), saying to pass --jwks', async () => {
      const path = await write('nowhere.json', fileOf(`${origin}/elsewhere`, request, receipts));
      const ran = await dss(['receipts', 'verify', path]);
      expect(ran.code).to.equal(4);
      expect(ran.stderr).to.match(/^dss: jwks_unavailable: .*\/elsewhere\/.well-known\/jwks.json answered 404/);
    });
  });

  it('a file that is not a receipts file, or cannot be read, is a usage error: exit 2', async () => {
    const list = await write('list.json', receipts);
    const notList = await dss(['receipts', 'verify', list, '--jwks', jwks]);
    expect(notList.code).to.equal(2);
    expect(notList.stderr).to.match(/^dss: usage: .*list\.json: a receipts file is a JSON object with a "receipts" list/);

    const notJson = await dss(['receipts', 'verify', await write('not.json', 'eyJ...'), '--jwks', jwks]);
    expect(notJson.code).to.equal(2);
    expect(notJson.stderr).to.match(/^dss: usage: the receipts file .* is not JSON/);

    const missing = await dss(['receipts', 'verify', join(dir, 'missing.json'), '--jwks', jwks]);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.match(/^dss: usage: cannot read the receipts file/);

    const badKeys = await dss(['receipts', 'verify', file, '--jwks', file]);
    expect(badKeys.code).to.equal(2);
    expect(badKeys.stderr).to.match(/is not a JWK Set/);
  });

  it('an empty list verifies without any keys: exit 0', async () => {
    const empty = await write('empty.json', { issuer: ISSUER, requestId: request, receipts: [] });
    const ran = await dss(['receipts', 'verify', empty, '--output', 'text']);
    expect(ran.code, ran.stderr).to.equal(0);
    expect(ran.stdout).to.equal(`0 receipts in ${empty}: nothing to verify\n`);
  });

  it('--help shows its examples', async () => {
    const help = await dss(['receipts', 'verify', '--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout)
      .to.contain('--jwks <file>')
      .and.to.contain('Examples:')
      .and.to.contain('$ dss receipts verify receipts.json --jwks jwks.json');
  });
});
