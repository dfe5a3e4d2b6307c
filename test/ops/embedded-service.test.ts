import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE } from '../../src/data-dir.js';
import { generateMasterKey } from '../../src/identity/keys/index.js';
import { embeddedEnv, npmRun, ServiceProcess, type Outcome } from './support/processes.js';

const BASE_URL = 'http://data.example.test';
const CLIS = ['replay', 'projections', 'keys', 'rotate-master-key', 'verify-log'] as const;

/** A login through the running service, the code read from the outbox in DATA_DIR: it writes to the database. */
async function logIn(service: ServiceProcess, dataDir: string, email: string): Promise<{ code: string; status: number }> {
  const post = (path: string, body: unknown) =>
    fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect((await post('/auth/send-otp', { email })).status).to.equal(200);
  const mails = (await readFile(join(dataDir, 'outbox.log'), 'utf8')).trim().split('\n');
  const code = /\b(\d{6})\b/.exec((JSON.parse(mails.at(-1)!) as { text: string }).text)![1]!;
  return { code, status: (await post('/auth/verify-otp', { email, code })).status };
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('the embedded service, a process of its own on PGlite in DATA_DIR (contract §10.12)', function () {
  this.timeout(180_000);
  let dataDir: string;
  let env: Record<string, string>;
  let service: ServiceProcess;
  let login: { code: string; status: number };
  const email = `ops${randomBytes(4).toString('hex')}@example.com`;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'dss-ops-'));
    env = embeddedEnv({ DATA_DIR: dataDir, PORT: '0', BASE_URL, LOG_LEVEL: 'info' });
    service = await ServiceProcess.start(env);
    login = await logIn(service, dataDir, email);
  });
  after(async () => {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  describe('operational logging', () => {
    it('logs that it generated dev keys into DATA_DIR, naming the file', () => {
      const generated = service.lines.find((l) => /dev keys/i.test(l.msg) && /generated/i.test(l.msg));
      expect(generated, JSON.stringify(service.lines.map((l) => l.msg))).to.not.equal(undefined);
      expect(generated!.path).to.equal(join(dataDir, 'dev-keys.json'));
    });

    it('logs the port it listens on and the BASE_URL it serves, never a host BASE_URL does not name', () => {
      const listening = service.lines.find((l) => l.msg.startsWith('listening'))!;
      expect(listening.port).to.be.a('number').above(0);
      expect(listening.baseUrl).to.equal(BASE_URL);
      expect(listening.msg).to.contain(BASE_URL).and.not.to.contain('localhost');
    });

    it('keeps login codes out of the info log: the code is in the outbox only', () => {
      expect(login.status).to.equal(200);
      const logged = service.lines.filter((l) => JSON.stringify(l).includes(login.code));
      expect(logged.map((l) => l.msg)).to.deep.equal([]);
    });
  });

  describe('§10.12 the embedded data directory belongs to one process', () => {
    it('a second npm start on the DATA_DIR in use refuses, saying so, and exits non-zero', async () => {
      const second = ServiceProcess.spawn(env);
      const outcome = await second.listeningOrExit();
      if (outcome === 'listening') await second.stop();
      expect(outcome, 'the second service started').to.be.a('number').and.not.equal(0);
      expect(second.stderr()).to.match(new RegExp(`DATA_DIR ${dataDir} is in use by process ${service.pid}`));
    });

    const refusals: Record<(typeof CLIS)[number], { args: string[]; env?: () => Promise<Record<string, string>> }> = {
      replay: { args: [] },
      projections: { args: ['status'] },
      keys: { args: [] },
      // The new key would re-wrap every vault key under the running service's feet.
      'rotate-master-key': {
        args: [],
        env: async () => ({
          MASTER_KEY: generateMasterKey().toString('base64'),
          OLD_MASTER_KEY: (JSON.parse(await readFile(join(dataDir, 'dev-keys.json'), 'utf8')) as { masterKey: string }).masterKey,
        }),
      },
      'verify-log': { args: [] },
    };
    for (const cli of CLIS) {
      it(`npm run ${cli} on the DATA_DIR in use refuses, saying so, exits non-zero and changes nothing`, async () => {
        const { args, env: extra } = refusals[cli];
        const r: Outcome = await npmRun(cli, args, { ...env, ...(await extra?.()) });
        expect(r.code, r.stdout + r.stderr).to.not.equal(0);
        expect(r.stderr).to.match(new RegExp(`DATA_DIR ${dataDir} is in use by process ${service.pid}`));
        expect(r.stdout).to.equal('');
      });
    }

    it('npm run <cli> -- --help still prints usage and exits 0 while the DATA_DIR is in use', async () => {
      for (const cli of CLIS) {
        const r = await npmRun(cli, ['--help'], env);
        expect(r.code, `${cli}: ${r.stderr}`).to.equal(0);
        expect(r.stdout, cli).to.match(/^usage: npm run/);
      }
    });

    it('after the refusals the service still serves, and once stopped its data directory opens with every event intact', async () => {
      expect((await fetch(`${service.url}/readyz`)).status).to.equal(200);
      expect((await logIn(service, dataDir, email)).status).to.equal(200);
      expect(await service.stop()).to.equal(0);
      const verified = await npmRun('verify-log', [], env);
      expect(verified.code, verified.stderr).to.equal(0);
      expect(verified.stdout).to.match(/^log intact: [1-9][\d,]* events/);
    });
  });
});

describe('§10.12 a lock left by a process that died is taken over', function () {
  this.timeout(120_000);
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'dss-ops-stale-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('after the service is killed, a tool opens the data directory, and the service starts again', async () => {
    const env = embeddedEnv({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' });
    await (await ServiceProcess.start(env)).kill();
    expect(await exists(join(dataDir, LOCK_FILE)), 'the killed service left its lock').to.equal(true);
    const verified = await npmRun('verify-log', [], env);
    expect(verified.code, verified.stderr).to.equal(0);
    const again = await ServiceProcess.start(env);
    expect(await again.stop()).to.equal(0);
    expect(await exists(join(dataDir, LOCK_FILE)), 'a clean stop releases the lock').to.equal(false);
  });
});
