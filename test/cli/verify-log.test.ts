import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBackends, type Backends } from '../../src/backends.js';
import { loadConfig } from '../../src/config.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { asAttacker, writeScriptedLog } from '../support/scripted-log.js';

type Outcome = { readonly code: number; readonly stdout: string };

/** npm run verify-log in a process of its own, configured by `env` alone. */
function runVerifyLog(env: Record<string, string>): Promise<Outcome> {
  const { DATABASE_URL: _db, EVENTSTORE_URL: _es, DATA_DIR: _dir, ...inherited } = process.env;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/verify-log.ts'], { env: { ...inherited, ...env } }, (error, stdout) => {
      if (error && typeof error.code !== 'number') reject(new Error(error.message));
      else resolve({ code: error ? Number(error.code) : 0, stdout });
    });
  });
}

describe(`npm run verify-log, a process of its own on ${mainBackend}`, () => {
  let dataDir: string;
  let server: TestDatabase | null = null;
  let env: Record<string, string>;
  /** The service's own backends for this configuration; PGlite's data directory admits one process at a time. */
  const withBackends = async (fn: (b: Backends) => Promise<unknown>) => {
    const backends = await openBackends(loadConfig(env));
    try {
      await fn(backends);
    } finally {
      await backends.close();
    }
  };

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'verify-log-'));
    if (mainBackend === 'postgres') server = await openTestDatabase('postgres');
    env = server?.url ? { DATABASE_URL: server.url } : { DATA_DIR: dataDir };
    await withBackends((b) => writeScriptedLog(b.db, b.store));
  });
  after(async () => {
    await server?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('exits 0 and says the log is intact, with its events and checkpoints counted', async () => {
    const { code, stdout } = await runVerifyLog(env);
    expect(stdout).to.match(/^log intact: \d+ events, [1-9]\d* checkpoints\n$/);
    expect(code).to.equal(0);
  });

  it('exits 1 and prints the first broken link when one stored event was edited', async () => {
    await withBackends((b) => asAttacker(b.db, [`UPDATE es.events SET type = 'Forged' WHERE stream_id = 'case-c' AND revision = 1`, []]));
    const { code, stdout } = await runVerifyLog(env);
    expect(stdout).to.match(/^log broken at \d+\/\d+, stream case-c revision 1: edited/);
    expect(code).to.equal(1);
  });
});
