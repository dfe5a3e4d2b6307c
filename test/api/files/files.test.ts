import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { mainBackend } from '../../support/databases.js';
import { client } from '../../support/http.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';
import { chunkedBody, fileClient } from './file-client.js';

const LIMIT = 64 * 1024;

type User = { token: string; email: string; userId: string };

describe(`files (contract 6, issue 6; ${mainBackend})`, function () {
  this.timeout(60_000);
  let service: TestService;
  const mailer = new RecordingMailer();
  let api: ReturnType<typeof client>;
  let files: ReturnType<typeof fileClient>;
  let ann: User;
  let bob: User;

  before(async () => {
    service = await startTestService({ domain: { mailer, env: { MAX_FILE_BYTES: String(LIMIT) } } });
    api = client(service.url);
    files = fileClient(service.url);
    ann = await registered();
    bob = await registered();
  });
  after(() => service.close());

  async function registered(): Promise<User> {
    const email = `f${randomBytes(4).toString('hex')}@example.com`;
    await api.post('/auth/send-otp', { email });
    const { token } = (await api.post('/auth/verify-otp', { email, code: mailer.lastCodeFor(email) })).body as { token: string };
    const r = await api.graphql(token, 'mutation { user { register(input: {}) { userId } } }');
    return { token, email, userId: (r.body as { data: { user: { register: { userId: string } } } }).data.user.register.userId };
  }

  async function uploaded(
    user: User,
    bytes: Uint8Array,
    params: Record<string, string> = { fileName: 'f.bin' },
    type?: string,
  ): Promise<string> {
    const r = await files.upload(user.token, params, bytes, type);
    expect(r.status, JSON.stringify(r.json)).to.equal(201);
    return r.json.fileId as string;
  }

  /** What a refused upload must not leave behind: events, read-model rows, blobs. */
  async function storedCounts() {
    const count = async (sql: string) => Number((await service.db.query<{ n: number }>(sql)).rows[0]!.n);
    return {
      events: await count(`SELECT count(*)::int AS n FROM es.events WHERE type IN ('FileUploaded', 'FileVersionAdded')`),
      versions: await count('SELECT count(*)::int AS n FROM rm.file_versions'),
      blobs: await count('SELECT count(*)::int AS n FROM files.blobs'),
    };
  }

  const allByteValues = () => Buffer.from(Array.from({ length: 256 }, (_, i) => i));

  describe('round trip', () => {
    it('upload answers 201 {fileId, version: 1}; download returns every byte value exactly', async () => {
      const bytes = Buffer.concat([allByteValues(), allByteValues().reverse()]);
      const r = await files.upload(ann.token, { fileName: 'bytes.bin', label: 'PassportScan' }, bytes);
      expect(r.status).to.equal(201);
      expect(r.json).to.deep.equal({ fileId: r.json.fileId, version: 1 });
      const got = await files.download(ann.token, r.json.fileId as string);
      expect(got.status).to.equal(200);
      expect(got.bytes.equals(bytes)).to.equal(true);
      expect(got.headers.get('content-length')).to.equal(String(bytes.length));
    });

    it('random bytes round-trip through upload, new version and download', async () => {
      const v1 = randomBytes(40_000);
      const v2 = randomBytes(LIMIT - 1);
      const fileId = await uploaded(ann, v1);
      const added = await files.addVersion(ann.token, fileId, { fileName: 'f.bin' }, v2);
      expect(added.status).to.equal(201);
      expect(added.json).to.deep.equal({ fileId, version: 2 });
      expect((await files.download(ann.token, fileId)).bytes.equals(v2)).to.equal(true);
      expect((await files.download(ann.token, fileId, 1)).bytes.equals(v1)).to.equal(true);
    });

    it('an empty body is an empty file, as upload and as version', async () => {
      const fileId = await uploaded(ann, new Uint8Array(0), { fileName: 'empty.txt' }, 'text/plain');
      const got = await files.download(ann.token, fileId);
      expect(got.status).to.equal(200);
      expect(got.bytes.length).to.equal(0);
      expect(got.headers.get('content-length')).to.equal('0');
      expect((await files.addVersion(ann.token, fileId, { fileName: 'empty.txt' }, new Uint8Array(0))).json.version).to.equal(2);
    });

    it('exactly MAX_FILE_BYTES is a file, sent with Content-Length or chunked', async () => {
      const bytes = randomBytes(LIMIT);
      const fileId = await uploaded(ann, bytes);
      expect((await files.download(ann.token, fileId)).bytes.equals(bytes)).to.equal(true);
      const chunked = await files.upload(ann.token, { fileName: 'c.bin' }, chunkedBody(LIMIT, 1000).stream);
      expect(chunked.status).to.equal(201);
      const got = (await files.download(ann.token, chunked.json.fileId as string)).bytes;
      expect(got.equals(Buffer.alloc(LIMIT, 0x5a))).to.equal(true);
    });

    it('version=N downloads that version with its own name and content type; no version gives the newest', async () => {
      const fileId = await uploaded(ann, Buffer.from('%PDF-1.7 one'), { fileName: 'scan.pdf', label: 'Passport' }, 'application/pdf');
      await files.addVersion(ann.token, fileId, { fileName: 'scan.png' }, Buffer.from('PNG two'), 'image/png');
      const newest = await files.download(ann.token, fileId);
      expect(newest.bytes.toString()).to.equal('PNG two');
      expect(newest.headers.get('content-type')).to.equal('image/png');
      expect(newest.headers.get('content-disposition')).to.equal('attachment; filename="scan.png"');
      const first = await files.download(ann.token, fileId, 1);
      expect(first.bytes.toString()).to.equal('%PDF-1.7 one');
      expect(first.headers.get('content-type')).to.equal('application/pdf');
      expect(first.headers.get('content-disposition')).to.equal('attachment; filename="scan.pdf"');
      expect((await files.download(ann.token, fileId, 2)).bytes.toString()).to.equal('PNG two');
      expect((await files.download(ann.token, fileId, 3)).status).to.equal(404);
      expect((await files.download(ann.token, fileId, 'x')).status).to.equal(400);
      expect((await files.download(ann.token, fileId, 0)).status).to.equal(400);
    });

    it('keeps the content type as sent, parameters included; none sent is application/octet-stream', async () => {
      const typed = await uploaded(ann, Buffer.from('hi'), { fileName: 'a.txt' }, 'text/plain; charset=utf-8');
      expect((await files.download(ann.token, typed)).headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      const r = await fetch(`${service.url}/vault/files?fileName=raw`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ann.token}` },
        body: new Uint8Array([1, 2]),
      });
      const untyped = ((await r.json()) as { fileId: string }).fileId;
      expect((await files.download(ann.token, untyped)).headers.get('content-type')).to.equal('application/octet-stream');
    });

    it('downloads are attachments the browser may not sniff or run', async () => {
      const fileId = await uploaded(ann, Buffer.from('<script>alert(1)</script>'), { fileName: 'x.html' }, 'text/html');
      const got = await files.download(ann.token, fileId);
      expect(got.headers.get('content-disposition')).to.match(/^attachment;/);
      expect(got.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(got.headers.get('content-security-policy')).to.contain('sandbox');
    });

    it('a non-ASCII name travels in filename* (RFC 6266, RFC 8187) beside an ASCII stand-in', async () => {
      const name = 'Päß (copy) 100%; "ok".pdf';
      const fileId = await uploaded(ann, Buffer.from('x'), { fileName: name });
      const header = (await files.download(ann.token, fileId)).headers.get('content-disposition')!;
      expect(header).to.equal(
        `attachment; filename="P__ (copy) 100_; _ok_.pdf"; filename*=UTF-8''P%C3%A4%C3%9F%20%28copy%29%20100%25%3B%20%22ok%22.pdf`,
      );
      const encoded = /filename\*=UTF-8''(.*)$/.exec(header)![1]!;
      expect(decodeURIComponent(encoded)).to.equal(name);
    });
  });

  describe('size limit (contract 0: a file over MAX_FILE_BYTES answers 413)', () => {
    it('one byte over the limit answers 413 payload_too_large and stores nothing', async () => {
      const before = await storedCounts();
      const r = await files.upload(ann.token, { fileName: 'big.bin' }, randomBytes(LIMIT + 1));
      expect(r.status).to.equal(413);
      expect(r.headers.get('content-type')).to.contain('application/problem+json');
      expect(r.json.code).to.equal('payload_too_large');
      expect(await storedCounts()).to.deep.equal(before);
    });

    it('a chunked upload without Content-Length is cut off at the first byte over the limit, nothing stored', async () => {
      const before = await storedCounts();
      const overByOne = await files.upload(ann.token, { fileName: 'big.bin' }, chunkedBody(LIMIT + 1, 4096).stream);
      expect(overByOne.status).to.equal(413);
      expect(overByOne.json.code).to.equal('payload_too_large');
      // A client that would send far more hears 413 long before it is done.
      const endless = chunkedBody(1024 * LIMIT);
      const r = await files.upload(ann.token, { fileName: 'huge.bin' }, endless.stream);
      expect(r.status).to.equal(413);
      expect(endless.pulled()).to.be.below(1024 * LIMIT);
      expect(await storedCounts()).to.deep.equal(before);
    });

    it('a new version over the limit answers 413; the file keeps its versions', async () => {
      const fileId = await uploaded(ann, Buffer.from('v1'));
      const before = await storedCounts();
      expect((await files.addVersion(ann.token, fileId, { fileName: 'f.bin' }, randomBytes(LIMIT + 1))).status).to.equal(413);
      expect((await files.addVersion(ann.token, fileId, { fileName: 'f.bin' }, chunkedBody(LIMIT + 1).stream)).status).to.equal(413);
      expect(await storedCounts()).to.deep.equal(before);
      const newest = await files.download(ann.token, fileId);
      expect(newest.headers.get('x-file-version')).to.equal('1');
      expect(newest.bytes.toString()).to.equal('v1');
    });
  });

  describe('validation (contract 0: 400 invalid_request naming the field)', () => {
    it('a missing fileName answers 400 invalid_request', async () => {
      for (const params of [{}, { label: 'x' }, { fileName: '' }] as Array<Record<string, string>>) {
        const r = await files.upload(ann.token, params, Buffer.from('x'));
        expect(r.status, JSON.stringify(params)).to.equal(400);
        expect(r.json.code).to.equal('invalid_request');
        expect(r.json.detail).to.contain('fileName');
      }
      const fileId = await uploaded(ann, Buffer.from('x'));
      expect((await files.addVersion(ann.token, fileId, {}, Buffer.from('y'))).json.code).to.equal('invalid_request');
    });

    it('refuses file names with path separators, control characters, or over 255 characters, and long labels', async () => {
      const before = await storedCounts();
      for (const fileName of ['../etc/passwd', 'a/b', 'a\\b', 'a\u0000b', 'line\nbreak', 'evil\u202Efdp.exe', '..', ' ', 'n'.repeat(256)]) {
        const r = await files.upload(ann.token, { fileName }, Buffer.from('x'));
        expect(r.status, JSON.stringify(fileName)).to.equal(400);
        expect(r.json.detail).to.contain('fileName');
      }
      const label = await files.upload(ann.token, { fileName: 'ok', label: 'l'.repeat(201) }, Buffer.from('x'));
      expect(label.status).to.equal(400);
      expect(label.json.detail).to.contain('label');
      expect(await storedCounts()).to.deep.equal(before);
      expect((await files.upload(ann.token, { fileName: 'n'.repeat(255), label: 'l'.repeat(200) }, Buffer.from('x'))).status).to.equal(201);
    });

    it('refuses a Content-Type that is no media type, and a Content-Encoding', async () => {
      expect((await files.upload(ann.token, { fileName: 'a' }, Buffer.from('x'), 'not a type')).json.code).to.equal('invalid_request');
      const encoded = await fetch(`${service.url}/vault/files?fileName=a`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ann.token}`, 'content-encoding': 'gzip' },
        body: new Uint8Array([1]),
      });
      expect(encoded.status).to.equal(415);
    });

    it('answers 401 without a valid user token', async () => {
      expect((await files.upload(undefined, { fileName: 'a' }, Buffer.from('x'))).status).to.equal(401);
      expect((await files.download(undefined, randomUUID())).status).to.equal(401);
    });
  });

  describe('register first (contract 1: before user.register only auth, register and me)', () => {
    it('an unregistered token gets 403 forbidden on upload, new version and download, before the id is looked at, and nothing is stored', async () => {
      const email = `u${randomBytes(4).toString('hex')}@example.com`;
      await api.post('/auth/send-otp', { email });
      const { token } = (await api.post('/auth/verify-otp', { email, code: mailer.lastCodeFor(email) })).body as { token: string };
      const fileId = await uploaded(ann, Buffer.from('anns'));
      const before = await storedCounts();
      const refusals = await Promise.all([
        files.upload(token, { fileName: 'f.bin' }, Buffer.from('bytes')),
        files.addVersion(token, fileId, { fileName: 'f.bin' }, Buffer.from('bytes')),
        files.addVersion(token, randomUUID(), { fileName: 'f.bin' }, Buffer.from('bytes')),
        files.download(token, fileId),
        files.download(token, 'not-a-uuid'),
      ]);
      for (const r of refusals) {
        expect(r.status).to.equal(403);
        expect(r.json.code).to.equal('forbidden');
        expect(r.json.detail).to.match(/register first/);
      }
      expect(await storedCounts()).to.deep.equal(before);
    });
  });

  describe('isolation (contract 0: 404, not 403)', () => {
    it("another user's file answers 404 exactly as an unknown or malformed id, for download and new version", async () => {
      const fileId = await uploaded(ann, Buffer.from('mine'));
      const refusals = await Promise.all([
        files.download(bob.token, fileId),
        files.download(bob.token, fileId, 1),
        files.download(bob.token, randomUUID()),
        files.download(bob.token, 'not-a-uuid'),
        files.addVersion(bob.token, fileId, { fileName: 'x' }, Buffer.from('theirs')),
        files.addVersion(bob.token, randomUUID(), { fileName: 'x' }, Buffer.from('theirs')),
        files.addVersion(bob.token, 'not-a-uuid', { fileName: 'x' }, Buffer.from('theirs')),
      ]);
      for (const r of refusals) {
        expect(r.status).to.equal(404);
        expect(r.json.code).to.equal('not_found');
        expect(r.json.detail).to.equal('no such file');
      }
      const mine = await files.download(ann.token, fileId);
      expect(mine.bytes.toString()).to.equal('mine');
      expect(mine.headers.get('x-file-version')).to.equal('1');
    });

    it("a document's id is no file", async () => {
      const r = await api.graphql(ann.token, 'mutation($i: DocumentInput!) { user { document { create(input: $i) { id } } } }', {
        i: { name: 'd', documentSchema: { type: 'object' }, data: {} },
      });
      const documentId = (r.body as { data: { user: { document: { create: { id: string } } } } }).data.user.document.create.id;
      expect((await files.download(ann.token, documentId)).status).to.equal(404);
      expect((await files.addVersion(ann.token, documentId, { fileName: 'x' }, Buffer.from('x'))).status).to.equal(404);
    });

    it('an owner that is no legal entity the caller belongs to answers 404, and stores nothing', async () => {
      const before = await storedCounts();
      for (const owner of [randomUUID(), 'not-a-uuid', bob.userId]) {
        const r = await files.upload(ann.token, { fileName: 'a', owner }, Buffer.from('x'));
        expect(r.status, owner).to.equal(404);
        expect(r.json.code).to.equal('not_found');
      }
      expect(await storedCounts()).to.deep.equal(before);
    });

    it("a legal entity's files: its MANAGER uploads and adds versions, a MEMBER only downloads, others see nothing", async () => {
      const created = await api.graphql(ann.token, 'mutation { user { entity { create(name: "Acme") { entityId } } } }');
      const entityId = (created.body as { data: { user: { entity: { create: { entityId: string } } } } }).data.user.entity.create.entityId;
      const fileId = await uploaded(ann, Buffer.from('register extract'), { fileName: 'extract.pdf', owner: entityId }, 'application/pdf');
      expect((await files.download(bob.token, fileId)).status).to.equal(404);

      await api.graphql(
        ann.token,
        `mutation { user { entity { setMember(entityId: "${entityId}", email: "${bob.email}", role: MEMBER) { entityId } } } }`,
      );
      expect((await files.download(bob.token, fileId)).bytes.toString()).to.equal('register extract');
      const listed = (await api.graphql(bob.token, '{ user { files { id owner } } }')).body as { data: { user: { files: unknown[] } } };
      expect(listed.data.user.files, "user.files shows the entity's file to its member").to.deep.include({ id: fileId, owner: entityId });
      expect((await files.addVersion(bob.token, fileId, { fileName: 'x' }, Buffer.from('x'))).status).to.equal(403);
      expect((await files.upload(bob.token, { fileName: 'x', owner: entityId }, Buffer.from('x'))).status).to.equal(403);
      expect((await files.addVersion(ann.token, fileId, { fileName: 'extract-2.pdf' }, Buffer.from('v2'))).json.version).to.equal(2);
      const outsider = await registered();
      expect((await files.download(outsider.token, fileId)).status).to.equal(404);
    });
  });

  it('user.files lists the files of every vault the caller reads, newest first, each with its versions', async () => {
    const carol = await registered();
    const first = await uploaded(carol, Buffer.from('scan'), { fileName: 'passport.pdf', label: 'Passport' }, 'application/pdf');
    await files.addVersion(carol.token, first, { fileName: 'passport-2.png' }, Buffer.from('a new scan'), 'image/png');
    const second = await uploaded(carol, Buffer.from('bill'), { fileName: 'bill.txt' }, 'text/plain');
    const FILES = '{ user { files { id label owner version versions { version fileName mimeType fileSize uploadedAt } } } }';
    const listed = (await api.graphql(carol.token, FILES)).body as { data: { user: { files: Array<Record<string, unknown>> } } };
    const shown = listed.data.user.files.map((f) => ({
      ...f,
      versions: (f.versions as Array<Record<string, unknown>>).map(({ uploadedAt, ...v }) => {
        expect(Date.parse(String(uploadedAt))).to.be.greaterThan(0);
        return v;
      }),
    }));
    expect(shown).to.deep.equal([
      {
        id: second,
        label: null,
        owner: null,
        version: 1,
        versions: [{ version: 1, fileName: 'bill.txt', mimeType: 'text/plain', fileSize: 4 }],
      },
      {
        id: first,
        label: 'Passport',
        owner: null,
        version: 2,
        versions: [
          { version: 1, fileName: 'passport.pdf', mimeType: 'application/pdf', fileSize: 4 },
          { version: 2, fileName: 'passport-2.png', mimeType: 'image/png', fileSize: 10 },
        ],
      },
    ]);
    const others = (await api.graphql(bob.token, '{ user { files { id } } }')).body as { data: { user: { files: Array<{ id: string }> } } };
    expect(others.data.user.files.map((f) => f.id)).to.not.include.members([first, second]);
  });

  it('concurrent new versions of one file each get their own version number and bytes', async () => {
    const fileId = await uploaded(ann, Buffer.from('v1'));
    const bodies = [1, 2, 3, 4].map((i) => Buffer.from(`concurrent ${i}`));
    const results = await Promise.all(bodies.map((b) => files.addVersion(ann.token, fileId, { fileName: 'c' }, b)));
    const versions = results.map((r) => r.json.version as number);
    expect([...versions].sort()).to.deep.equal([2, 3, 4, 5]);
    for (const [i, version] of versions.entries()) {
      expect((await files.download(ann.token, fileId, version)).bytes.equals(bodies[i]!)).to.equal(true);
    }
  });

  it('a new version of a file with 30 reads none of them again: the instance that added them folded them', async () => {
    const fileId = await uploaded(ann, Buffer.from('v1'));
    for (let v = 2; v <= 30; v++)
      expect((await files.addVersion(ann.token, fileId, { fileName: 'f' }, Buffer.from(`v${v}`))).status).to.equal(201);
    let eventsRead = 0;
    const read = service.store.readStream.bind(service.store);
    service.store.readStream = async (streamId, options) => {
      const events = await read(streamId, options);
      if (streamId === `resource-${fileId}`) eventsRead += events.length;
      return events;
    };
    try {
      expect((await files.addVersion(ann.token, fileId, { fileName: 'f' }, Buffer.from('v31'))).json).to.deep.equal({
        fileId,
        version: 31,
      });
    } finally {
      service.store.readStream = read;
    }
    expect(eventsRead).to.equal(0);
    expect((await files.download(ann.token, fileId, 30)).bytes.toString()).to.equal('v30');
  });

  it('stores file bytes only encrypted: the log, the read models and the blob table hold no plaintext', async () => {
    const marker = `FILE-MARKER-${randomBytes(8).toString('hex').toUpperCase()}`;
    const fileId = await uploaded(
      ann,
      Buffer.from(`header ${marker} trailer`),
      { fileName: 'secret-report.txt', label: 'Report' },
      'text/plain',
    );
    await files.addVersion(ann.token, fileId, { fileName: 'secret-report.txt' }, Buffer.from(marker));
    const text =
      JSON.stringify((await service.db.query('SELECT data, metadata FROM es.events')).rows) +
      JSON.stringify((await service.db.query('SELECT * FROM rm.files')).rows) +
      JSON.stringify((await service.db.query('SELECT * FROM rm.file_versions')).rows);
    expect(text).to.contain('secret-report.txt');
    expect(text).to.not.contain(marker);
    const blobs = (await service.db.query<{ sealed: Uint8Array }>('SELECT sealed FROM files.blobs')).rows.map((r) => Buffer.from(r.sealed));
    expect(blobs.length).to.be.greaterThan(0);
    for (const blob of blobs) {
      expect(blob.indexOf(marker)).to.equal(-1);
      expect(blob.toString('hex')).to.not.contain(Buffer.from(marker).toString('hex'));
    }
    expect((await files.download(ann.token, fileId, 1)).bytes.toString()).to.equal(`header ${marker} trailer`);
    expect(service.logText()).to.not.contain(marker).and.not.contain('secret-report');
  });

  it("erasing a vault's key makes its files 404 (download and new version) while other vaults' files still download", async () => {
    const carol = await registered();
    const carolsFile = await uploaded(carol, Buffer.from('carol'));
    const annsFile = await uploaded(ann, Buffer.from('ann'));
    await service.domain!.keyring.erase(carol.userId);
    for (const r of [
      await files.download(carol.token, carolsFile),
      await files.download(carol.token, carolsFile, 1),
      await files.addVersion(carol.token, carolsFile, { fileName: 'x' }, Buffer.from('x')),
    ]) {
      expect(r.status).to.equal(404);
      expect(r.json.code).to.equal('not_found');
    }
    expect((await files.download(ann.token, annsFile)).bytes.toString()).to.equal('ann');
  });
});
