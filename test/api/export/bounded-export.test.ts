import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Lease } from '../../../src/db/sql.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { fileClient } from '../files/file-client.js';
import { orgClient, problem, type OrgClient } from '../org/org-client.js';
import { consentScenario, type User } from '../support/consent-scenario.js';
import { OutageDb } from '../support/outages.js';
import { startTestService, type TestService } from '../support/service.js';
import { readExport, sha256, type Line } from './export-reader.js';

const MiB = 1024 * 1024;
/** MAX_FILE_BYTES as configured by default: each version is as large as a file may be. */
const VERSION_BYTES = 25 * MiB;
const VERSIONS = 8;
/** How much the service's memory may grow while it streams that archive. */
const RSS_GROWTH_BOUND = 64 * MiB;

/** The service's database, slow to give a lease back while `releaseDelayMs` is set, as a busy one is. */
class SlowReleaseDb extends OutageDb {
  releaseDelayMs = 0;

  override async tryLease(name: string): Promise<Lease | null> {
    const lease = await super.tryLease(name);
    if (!lease) return null;
    const delay = this.releaseDelayMs;
    return { lost: lease.lost, release: async () => (await new Promise((r) => setTimeout(r, delay)), lease.release()) };
  }
}

describe(`§10.7 export is bounded (R-EXP-03 to R-EXP-06; ${mainBackend})`, function () {
  // Eight uploads of 25 MiB and their export: seconds on PostgreSQL, minutes on the embedded PGlite.
  this.timeout(600_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let db: SlowReleaseDb;
  let api: OrgClient;
  let calls: ReturnType<typeof consentScenario>;
  /** A person whose vault holds one file of VERSIONS versions of VERSION_BYTES each (200 MiB). */
  let heavy: User;
  let fileId: string;
  /** sha256 of each version's bytes as uploaded, version 1 first. */
  const uploaded: string[] = [];

  const exportOf = (u: User, signal?: AbortSignal) =>
    fetch(`${service.url}/vault/export`, { headers: { authorization: `Bearer ${u.token}` }, ...(signal ? { signal } : {}) });

  before(async () => {
    service = await startTestService({ domain: { mailer }, wrapDb: (inner) => (db = new SlowReleaseDb(inner)) });
    api = orgClient(service.url, mailer);
    calls = consentScenario(api, () => '');
    heavy = await api.user();
    const files = fileClient(service.url);
    for (let version = 1; version <= VERSIONS; version++) {
      const bytes = randomBytes(VERSION_BYTES);
      uploaded.push(sha256(bytes));
      const r =
        version === 1
          ? await files.upload(heavy.token, { fileName: 'scan-1.bin', label: 'Scans' }, bytes)
          : await files.addVersion(heavy.token, fileId, { fileName: `scan-${version}.bin` }, bytes);
      expect(r.status, JSON.stringify(r.json)).to.equal(201);
      if (version === 1) fileId = r.json.fileId as string;
    }
  });
  after(async () => {
    await service.close();
  });

  it("streams a vault of 200 MiB of file versions whole, every byte as uploaded, while the service's memory grows by at most 64 MiB", async () => {
    // The service runs in this process: its resident memory is this process's, sampled while the
    // archive streams and is read chunk by chunk (never buffered whole).
    const before = process.memoryUsage.rss();
    let peak = before;
    const sample = () => void (peak = Math.max(peak, process.memoryUsage.rss()));
    const sampler = setInterval(sample, 5);
    let lines: Line[];
    try {
      const res = await exportOf(heavy);
      expect(res.status).to.equal(200);
      lines = await readExport(res.body!, sample);
    } finally {
      clearInterval(sampler);
    }

    expect(lines.at(-1)).to.deep.equal({ kind: 'end', lines: lines.length - 1 });
    const file = lines.find((l) => l.kind === 'file')!;
    expect(file).to.deep.include({ id: fileId, label: 'Scans' });
    expect(
      file.versions.map((v: { version: number; fileName: string; fileSize: number; content: { sha256: string; bytes: number } }) => [
        v.version,
        v.fileName,
        v.fileSize,
        v.content.bytes,
        v.content.sha256,
      ]),
    ).to.deep.equal(uploaded.map((digest, i) => [i + 1, `scan-${i + 1}.bin`, VERSION_BYTES, VERSION_BYTES, digest]));
    expect(peak - before, `RSS grew by ${((peak - before) / MiB).toFixed(1)} MiB`).to.be.at.most(RSS_GROWTH_BOUND);
  });

  it('a second export of the same person while one runs answers 429 rate_limited with Retry-After', async () => {
    const running = new AbortController();
    const first = await exportOf(heavy, running.signal);
    try {
      expect(first.status).to.equal(200);
      // The first has started streaming; its client reads no further, so it is still running.
      await first.body!.getReader().read();
      const second = await api.get('/vault/export', heavy.token);
      expect(problem(second)).to.deep.equal({ status: 429, code: 'rate_limited' });
      expect(Number(second.headers.get('retry-after'))).to.be.at.least(1);
    } finally {
      running.abort();
    }
  });

  it('an export read to its end has given the turn back, even on a database slow to take it: the next one, asked at once, answers 200', async () => {
    const light = await api.user();
    db.releaseDelayMs = 300;
    try {
      for (let i = 1; i <= 3; i++) {
        const res = await exportOf(light);
        expect(res.status, `export ${i}`).to.equal(200);
        const lines = await readExport(res.body!);
        expect(lines.at(-1)).to.deep.equal({ kind: 'end', lines: lines.length - 1 });
      }
    } finally {
      db.releaseDelayMs = 0;
    }
  });

  it("an export its client stops reading gives the person's turn back", async () => {
    const running = new AbortController();
    const first = await exportOf(heavy, running.signal);
    await first.body!.getReader().read();
    running.abort();
    // The service learns that the client went away when it next writes: ask again until it has.
    let next = await exportOf(heavy);
    for (let i = 0; i < 100 && next.status === 429; i++) {
      await next.body?.cancel();
      await new Promise((r) => setTimeout(r, 50));
      next = await exportOf(heavy);
    }
    await next.body?.cancel();
    expect(next.status).to.equal(200);
  });

  it('user.export may appear once per request: an alias of it, or a second user field asking it, is refused', async () => {
    const u = await api.user();
    for (const query of ['{ user { e0: export e1: export } }', '{ a: user { export } b: user { export } }']) {
      const r = await calls.gql(u, query);
      expect(r.data ?? null, query).to.equal(null);
      expect(
        r.errors?.map((e) => e.extensions.code),
        query,
      ).to.deep.equal(['BAD_USER_INPUT']);
    }
    expect(calls.ok(await calls.gql(u, '{ user { export } }')).user.export).to.be.a('string');
  });
});

describe(`§10.7 downloads by one-time link count against the person's fair use (R-EXP-06; ${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  /** The service's clock stands still unless a test moves it, so no bucket refills on its own. */
  let clock = Date.now();
  let service: TestService;
  let api: OrgClient;
  let calls: ReturnType<typeof consentScenario>;

  before(async () => {
    // A session's bucket: 3 requests, refilled at one a second of the service's clock.
    service = await startTestService({
      domain: { mailer, now: () => new Date(clock), env: { RATE_LIMIT_TOKEN_BURST: '3', RATE_LIMIT_TOKEN_PER_SECOND: '1' } },
    });
    api = orgClient(service.url, mailer);
    calls = consentScenario(api, () => '');
  });
  after(async () => {
    await service.close();
  });

  /** The status of a download by link; the archive itself is read and dropped. */
  const download = async (link: string) => {
    const res = await fetch(`${service.url}${link}`);
    await res.arrayBuffer();
    return res.status;
  };
  /** A registered person (register drew one request) and a one-time link (a second). */
  const personWithLink = async () => {
    const u = await api.user();
    const link = (calls.ok(await calls.gql(u, '{ user { export } }')).user.export as string).replace('http://service.test', '');
    return { u, link };
  };

  it("a download by one-time link draws a request from the session's bucket", async () => {
    const { u, link } = await personWithLink();
    expect(await download(link)).to.equal(200);
    // Register, the link and the download: the bucket of three is empty.
    expect(problem(await api.post('/graphql', u.token, { query: '{ user { me { email } } }' }))).to.deep.equal({
      status: 429,
      code: 'rate_limited',
    });
  });

  it('HEAD by one-time link answers 405 and uses nothing: the link still downloads', async () => {
    const { link } = await personWithLink();
    const head = await fetch(`${service.url}${link}`, { method: 'HEAD' });
    expect({ status: head.status, allow: head.headers.get('allow') }).to.deep.equal({ status: 405, allow: 'GET' });
    clock += 1000;
    expect(await download(link)).to.equal(200);
  });

  it('past the bucket a download by link answers 429 rate_limited with Retry-After, and the link stays good', async () => {
    const { u, link } = await personWithLink();
    calls.ok(await calls.gql(u, '{ user { me { email } } }'));
    const refused = await api.get(link);
    expect(problem(refused)).to.deep.equal({ status: 429, code: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).to.be.at.least(1);
    clock += 1000;
    expect(await download(link)).to.equal(200);
  });
});
