import { expect } from 'chai';
import { verifyLog } from '../../../src/cli/verify-log-command.js';
import { documentSealContext } from '../../../src/documents/document-service.js';
import { readDecoded } from '../../../src/events/decoder.js';
import { identityStreams } from '../../../src/events/identity-events.js';
import { fileSealContext } from '../../../src/files/file-service.js';
import { VaultKeyErasedError, type VaultKeyring } from '../../../src/vaults/keyring.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer, TestClock } from '../../support/recording-mailer.js';
import { fileClient } from '../files/file-client.js';
import { orgClient, problem, type OrgClient } from '../org/org-client.js';
import { consentScenario, type Gql, type User } from '../support/consent-scenario.js';
import { startTestService, type TestService } from '../support/service.js';

const DOC_MARKER = 'Quillon-erasure-doc-marker';
const FILE_MARKER = 'Quillon-erasure-file-marker';

const REQUEST_ERASURE = 'mutation { user { security { requestErasure } } }';
const ERASE = 'mutation($code: String!) { user { security { eraseAccount(code: $code) } } }';
const ME = '{ user { me { userId email } } }';

/** A value as it may sit in a column: itself, as hex (bytea::text) and base64 at each of the three alignments. */
function encodings(value: Buffer): string[] {
  const b64 = [0, 1, 2].map((pad) => {
    const shifted = Buffer.concat([Buffer.alloc(pad), value]).toString('base64');
    // Only the characters that depend on the value alone, whatever surrounds it.
    const start = Math.ceil((pad * 4) / 3) + 1;
    return shifted.slice(start, start + Math.floor(((value.length - 2) * 4) / 3));
  });
  // A binary value (a key) as utf8 is only looked for as raw bytes; PostgreSQL text holds no NUL.
  const asText = value.toString('utf8');
  return [...(asText.includes('\u0000') ? [] : [asText]), value.toString('hex'), ...b64];
}

describe(`erasure: requestErasure and eraseAccount (contract 9, R-ERAS-01, R-ERAS-03 to R-ERAS-08; ${mainBackend})`, function () {
  this.timeout(180_000);
  const mailer = new RecordingMailer();
  const clock = new TestClock(Date.now());
  let service: TestService;
  let api: OrgClient;
  let calls: ReturnType<typeof consentScenario>;
  let keyring: VaultKeyring;
  let token: string;
  let manifest: { manifestId: string; slots: Array<{ slotId: string }> };

  const gql = (u: User, query: string, variables: Record<string, unknown> = {}) => calls.gql(u, query, variables);
  const codeOf = (r: Gql) => r.errors?.[0]?.extensions?.code;
  const requestErasure = (u: User) => gql(u, REQUEST_ERASURE);
  const erase = (u: User, code: string) => gql(u, ERASE, { code });
  const erasureCode = (u: User) => mailer.lastCodeFor(u.email);
  const otherThan = (code: string) => (code === '000000' ? '000001' : '000000');
  const userIdOf = async (u: User) => calls.ok(await gql(u, ME)).user.me.userId as string;
  const requestState = async (requestId: string) => {
    const r = await api.get(`/org/v1/requests/${requestId}`, token);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return (r.body.request as { state: string }).state;
  };

  before(async () => {
    service = await startTestService({ domain: { mailer, now: clock.now } });
    keyring = service.domain!.keyring;
    api = orgClient(service.url, mailer);
    calls = consentScenario(api, () => token);
    const owner = await api.user();
    token = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    const keep = { group: 'KYC', multiple: false, verbs: ['keep'], adoption: 'manual' };
    const m = await api.post('/org/v1/manifests', token, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [
        { ...keep, label: 'Name', kind: 'schema', target: 'PersonFullName' },
        { ...keep, label: 'Passport', kind: 'file', target: 'PassportScan' },
      ],
    });
    expect(m.status, JSON.stringify(m.body)).to.equal(201);
    manifest = m.body.manifest as typeof manifest;
  });
  after(() => service.close());

  describe('the confirmation code', () => {
    it('requestErasure mails a 6-digit code that says it erases the account, and nothing is erased before it is entered', async () => {
      const bob = await api.user();
      expect(calls.ok(await requestErasure(bob)).user.security.requestErasure).to.equal(true);
      const mail = mailer.sent.at(-1)!;
      expect(mail.to).to.equal(bob.email);
      expect(mail.subject).to.match(/erasure of your account/i);
      expect(mail.text).to.match(/ERASE your account is \d{6}/);
      expect(mail.text.match(/\b\d{6}\b/g)).to.have.length(1);
      expect(service.logText()).to.not.include(erasureCode(bob));
      expect(calls.ok(await gql(bob, ME)).user.me.email).to.equal(bob.email);
    });

    it('a wrong code and a login code answer as a wrong login code; an erasure code does not log in', async () => {
      const bob = await api.user();
      calls.ok(await requestErasure(bob));
      const code = erasureCode(bob);
      expect(codeOf(await erase(bob, otherThan(code)))).to.equal('UNAUTHENTICATED');

      expect((await api.post('/auth/send-otp', undefined, { email: bob.email })).status).to.equal(200);
      const loginCode = mailer.lastCodeFor(bob.email);
      expect(codeOf(await erase(bob, loginCode))).to.equal('UNAUTHENTICATED');
      expect(problem(await api.post('/auth/verify-otp', undefined, { email: bob.email, code }))).to.deep.equal({
        status: 401,
        code: 'invalid_code',
      });
      // Neither account state nor the codes moved: the erasure code still erases.
      expect(calls.ok(await gql(bob, ME)).user.me.email).to.equal(bob.email);
      expect(calls.ok(await erase(bob, code)).user.security.eraseAccount).to.equal(true);
    });

    it('a used code does not work again, not even for the new account of the same address', async () => {
      const bob = await api.user();
      calls.ok(await requestErasure(bob));
      const code = erasureCode(bob);
      calls.ok(await erase(bob, code));
      const again = await api.user({ email: bob.email });
      expect(codeOf(await erase(again, code))).to.equal('UNAUTHENTICATED');
      expect(calls.ok(await gql(again, ME)).user.me.email).to.equal(bob.email);
    });

    it('the fifth wrong try uses a code up, as a login code', async () => {
      const bob = await api.user();
      calls.ok(await requestErasure(bob));
      const code = erasureCode(bob);
      for (let i = 0; i < 5; i++) expect(codeOf(await erase(bob, otherThan(code)))).to.equal('UNAUTHENTICATED');
      expect(codeOf(await erase(bob, code))).to.equal('RATE_LIMITED');
      expect(calls.ok(await gql(bob, ME)).user.me.email).to.equal(bob.email);
    });

    it('sends count with login codes: the 4th code to an address within an hour is RATE_LIMITED, and an hour later one goes', async () => {
      const bob = await api.user();
      calls.ok(await requestErasure(bob));
      calls.ok(await requestErasure(bob));
      const sent = mailer.sent.length;
      const fourth = await requestErasure(bob);
      expect(codeOf(fourth)).to.equal('RATE_LIMITED');
      expect(mailer.sent).to.have.length(sent);
      clock.advance(61 * 60_000);
      expect(calls.ok(await requestErasure(bob)).user.security.requestErasure).to.equal(true);
    });
  });

  describe('what erasure does', () => {
    let ann: User;
    let annId: string;
    let otherSession: User;
    let docId: string;
    let fileId: string;
    let dataKey: Buffer;
    const requests = { pending: '', active: '', suspended: '' };
    let docAdoption: string;
    let fileAdoption: string;

    /** Every sealed value of the person's vault, in the log and beside it, with what opens it. */
    async function sealedOfVault(vaultId: string): Promise<Array<{ where: string; sealed: Buffer; context: string }>> {
      const events = (
        await service.db.query<{ type: string; data: { resourceId: string; version: number; sealedData?: string; blobId?: string } }>(
          `SELECT type, data FROM es.events WHERE data->>'vaultId' = $1 ORDER BY position`,
          [vaultId],
        )
      ).rows;
      const found: Array<{ where: string; sealed: Buffer; context: string }> = [];
      for (const e of events) {
        const { resourceId, version } = e.data;
        if (e.data.sealedData) {
          found.push({
            where: `${e.type} event`,
            sealed: Buffer.from(e.data.sealedData, 'base64'),
            context: documentSealContext(resourceId, version),
          });
        }
        if (e.data.blobId) {
          const blob = (await service.db.query<{ sealed: Buffer }>('SELECT sealed FROM files.blobs WHERE blob_id = $1', [e.data.blobId]))
            .rows[0]!;
          found.push({ where: 'files.blobs', sealed: Buffer.from(blob.sealed), context: fileSealContext(resourceId, version) });
        }
      }
      const rows = (
        await service.db.query<{ resource_id: string; version: number; sealed_data: string }>(
          'SELECT resource_id::text AS resource_id, version, sealed_data FROM rm.documents WHERE vault_id = $1',
          [vaultId],
        )
      ).rows;
      for (const r of rows) {
        found.push({
          where: 'rm.documents',
          sealed: Buffer.from(r.sealed_data, 'base64'),
          context: documentSealContext(r.resource_id, r.version),
        });
      }
      return found;
    }

    /** Every column of every table of every schema, as text, that holds any of the needles; bytea also as raw bytes. */
    async function rawScan(needles: Buffer[]): Promise<string[]> {
      const columns = (
        await service.db.query<{ table_schema: string; table_name: string; column_name: string; data_type: string }>(
          `SELECT c.table_schema, c.table_name, c.column_name, c.data_type
           FROM information_schema.columns c
           JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
           WHERE t.table_type = 'BASE TABLE' AND c.table_schema NOT IN ('pg_catalog', 'information_schema')`,
        )
      ).rows;
      expect(columns.map((c) => `${c.table_schema}.${c.table_name}`)).to.include.members([
        'es.events',
        'files.blobs',
        'keys.vault_keys',
        'rm.documents',
      ]);
      const texts = needles.flatMap(encodings);
      const hits: string[] = [];
      for (const c of columns) {
        const column = `"${c.table_schema}"."${c.table_name}"."${c.column_name}"`;
        const from = `"${c.table_schema}"."${c.table_name}"`;
        const asText = await service.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${from} WHERE ${column}::text LIKE ANY ($1::text[])`,
          [texts.map((t) => `%${t.replace(/[\\%_]/g, '\\$&')}%`)],
        );
        if (asText.rows[0]!.n > 0) hits.push(column);
        if (c.data_type !== 'bytea') continue;
        const values = (await service.db.query<{ v: Buffer | null }>(`SELECT ${column} AS v FROM ${from}`)).rows;
        if (values.some((r) => r.v && needles.some((n) => Buffer.from(r.v!).includes(n)))) hits.push(`${column} (bytes)`);
      }
      return hits;
    }

    before(async () => {
      ann = await api.user();
      otherSession = await api.user({ email: ann.email, register: false });
      annId = await userIdOf(ann);
      docId = await calls.createDoc(ann, 'PersonFullName', { givenName: DOC_MARKER, familyName: 'Example' });
      const upload = await fileClient(service.url).upload(
        ann.token,
        { fileName: 'scan.pdf', label: 'Passport' },
        Buffer.from(`%PDF ${FILE_MARKER}`),
      );
      expect(upload.status, JSON.stringify(upload.json)).to.equal(201);
      fileId = upload.json.fileId as string;
      const [nameSlot, passportSlot] = manifest.slots.map((s) => s.slotId) as [string, string];

      requests.active = await calls.connected(manifest.manifestId, ann, { [nameSlot]: [docId], [passportSlot]: [fileId] });
      docAdoption = ((await calls.keep(requests.active, nameSlot)).adoptions as Array<{ adoptionId: string }>)[0]!.adoptionId;
      fileAdoption = ((await calls.keep(requests.active, passportSlot)).adoptions as Array<{ adoptionId: string }>)[0]!.adoptionId;
      requests.suspended = await calls.connected(manifest.manifestId, ann, { [nameSlot]: [docId] });
      calls.ok(
        await gql(ann, 'mutation($r: ID!) { user { request { suspend(requestId: $r) { requestId } } } }', { r: requests.suspended }),
      );
      const sent = await api.post('/org/v1/requests', token, { manifestId: manifest.manifestId, recipientEmail: ann.email });
      requests.pending = (sent.body.request as { requestId: string }).requestId;
      expect([
        await requestState(requests.active),
        await requestState(requests.suspended),
        await requestState(requests.pending),
      ]).to.deep.equal(['active', 'suspended', 'pending']);

      // What the scan must no longer find: the vault's key, and its data opening with it.
      dataKey = await keyring.dataKey(annId);
      const opened = await Promise.all((await sealedOfVault(annId)).map((s) => keyring.decrypt(annId, s.sealed, s.context)));
      expect(opened.map((b) => b.toString('utf8')).join('\n'))
        .to.include(DOC_MARKER)
        .and.include(FILE_MARKER);

      calls.ok(await requestErasure(ann));
      expect(calls.ok(await erase(ann, erasureCode(ann))).user.security.eraseAccount).to.equal(true);
    });

    it("ends every session: each of the person's tokens is 401 on the next request", async () => {
      for (const u of [ann, otherSession]) {
        expect((await api.post('/graphql', u.token, { query: ME })).status).to.equal(401);
        expect((await api.post('/auth/renew', u.token)).status).to.equal(401);
        expect((await fileClient(service.url).download(u.token, fileId)).status).to.equal(401);
      }
    });

    it('closes requests as the organization reads them: pending is rejected_by_recipient, active and suspended are revoked', async () => {
      expect(await requestState(requests.pending)).to.equal('rejected_by_recipient');
      expect(await requestState(requests.active)).to.equal('revoked');
      expect(await requestState(requests.suspended)).to.equal('revoked');
      const history = (await api.get(`/org/v1/requests/${requests.active}/history`, token)).body.history as Array<{
        type: string;
        actor: string;
      }>;
      expect(history.at(-1)).to.deep.include({ type: 'RequestRevoked', actor: 'recipient' });
    });

    it("the organization's kept copies stay readable by the organization (its own key)", async () => {
      const copies = (await api.get(`/org/v1/requests/${requests.active}/copies`, token)).body.copies as Array<{
        adoption: { adoptionId: string };
        data: Record<string, unknown>;
      }>;
      expect(copies.find((c) => c.adoption.adoptionId === docAdoption)?.data).to.deep.include({ givenName: DOC_MARKER });
      const download = await fetch(`${service.url}/org/v1/requests/${requests.active}/copies/${fileAdoption}/download`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(download.status).to.equal(200);
      expect(Buffer.from(await download.arrayBuffer()).toString()).to.equal(`%PDF ${FILE_MARKER}`);
    });

    it("raw scan: nothing of the person's vault decrypts, its key and markers are nowhere in clear, the login address left the identities", async () => {
      const sealed = await sealedOfVault(annId);
      expect(sealed.map((s) => s.where)).to.include.members(['DocumentCreated event', 'files.blobs', 'rm.documents']);
      for (const s of sealed) {
        let failure: unknown = null;
        await keyring.decrypt(annId, s.sealed, s.context).catch((e: unknown) => (failure = e));
        expect(failure, s.where).to.be.instanceOf(VaultKeyErasedError);
      }
      const keyRow = (
        await service.db.query<{ wrapped_key: Buffer | null }>('SELECT wrapped_key FROM keys.vault_keys WHERE vault_id = $1', [annId])
      ).rows[0]!;
      expect(keyRow.wrapped_key).to.equal(null);
      expect(await rawScan([dataKey, Buffer.from(DOC_MARKER), Buffer.from(FILE_MARKER)])).to.deep.equal([]);
      // The scan does find what is there: the address stays in clear in the log and in the organizations' requests (documented).
      expect(await rawScan([Buffer.from(ann.email)]))
        .to.include.members(['"es"."events"."data"', '"rm"."requests"."recipient_email"'])
        .and.not.include('"rm"."identities"."email"');

      const identities = await service.db.query('SELECT 1 FROM rm.identities WHERE email = $1 OR identity_id = $2', [ann.email, annId]);
      expect(identities.rowCount).to.equal(0);
      const sessions = await service.db.query(
        `SELECT 1 FROM rm.sessions WHERE identity_id = $1 AND (revoked_at IS NULL OR verified_emails <> '[]')`,
        [annId],
      );
      expect(sessions.rowCount).to.equal(0);
    });

    it('the erasure is one AccountErased event holding no personal data, and the log still verifies intact (verify-log)', async () => {
      const user = await readDecoded(service.store, identityStreams.user(annId));
      const erased = user.filter((e) => e.type === 'AccountErased');
      expect(erased.map((e) => e.data)).to.deep.equal([{ identityId: annId }]);
      const verification = await verifyLog({ db: service.db, store: service.store });
      expect(verification.firstBreak).to.equal(null);
      const total = (await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM es.events')).rows[0]!.n;
      expect(verification.events).to.equal(total);
    });

    it('logging in again with the same address starts a new account without documents; the old requests show closed', async () => {
      // The scenario used this hour's three codes of the address.
      clock.advance(61 * 60_000);
      const again = await api.user({ email: ann.email });
      expect(await userIdOf(again)).to.not.equal(annId);
      const mine = calls.ok(await gql(again, '{ user { documents { id } requests { requestId state } } }')).user;
      expect(mine.documents).to.deep.equal([]);
      // Requests are addressed to the address, and stay the organizations' record (docs/security.md "Erasure").
      expect(new Set((mine.requests as Array<{ state: string }>).map((r) => r.state))).to.deep.equal(
        new Set(['rejected_by_recipient', 'revoked']),
      );
      expect((await fileClient(service.url).download(again.token, fileId)).status).to.equal(404);
    });
  });
});
