import { expect } from 'chai';
import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadOrCreateDevKeys } from '../src/identity/keys/dev-keys.js';
import { privateDir } from '../src/data-dir.js';
import { OUTBOX_FILE, outboxMailer } from '../src/mail/index.js';

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe('DATA_DIR is private to the service user (dev keys, login codes, the embedded database)', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'data-dir-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('dev keys make DATA_DIR 0700 and their file 0600', async () => {
    const dataDir = join(root, 'data');
    const keys = await loadOrCreateDevKeys(dataDir);
    expect(await modeOf(dataDir)).to.equal(0o700);
    expect(await modeOf(keys.path)).to.equal(0o600);
  });

  it('the mail outbox (which holds login codes) is 0600 in a 0700 DATA_DIR', async () => {
    const dataDir = join(root, 'data');
    await outboxMailer({ dataDir, logger: pino({ level: 'silent' }) }).send({ to: 'a@example.org', subject: 's', text: 'code 123456' });
    expect(await modeOf(dataDir)).to.equal(0o700);
    expect(await modeOf(join(dataDir, OUTBOX_FILE))).to.equal(0o600);
  });

  it('a DATA_DIR left open to others by an older version is closed to 0700 on start', async () => {
    const dataDir = join(root, 'data');
    await mkdir(dataDir);
    await chmod(dataDir, 0o755);
    await privateDir(dataDir);
    expect(await modeOf(dataDir)).to.equal(0o700);
  });
});
