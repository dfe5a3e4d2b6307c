import { expect } from 'chai';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirInUseError, LOCK_FILE, lockDataDir, refuseWhileInUse } from '../../src/data-dir.js';

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

describe('§10.12 the DATA_DIR lock, within one process', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'dss-lock-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('a second open of a DATA_DIR this process holds is refused, naming it; once released it opens again', async () => {
    const lock = await lockDataDir(root);
    const error = await refusal(lockDataDir(root));
    expect(error).to.be.instanceOf(DataDirInUseError);
    expect((error as Error).message).to.contain(`DATA_DIR ${root} is in use by process ${process.pid}`);
    expect(await refusal(refuseWhileInUse(root))).to.be.instanceOf(DataDirInUseError);
    await lock.release();
    await refuseWhileInUse(root);
    await (await lockDataDir(root)).release();
  });

  it('a lock an earlier run left under this very pid (a container restarted) is taken over', async () => {
    const lock = await lockDataDir(root);
    const left = await readFile(join(root, LOCK_FILE), 'utf8');
    await lock.release();
    await writeFile(join(root, LOCK_FILE), left);
    await refuseWhileInUse(root);
    await (await lockDataDir(root)).release();
  });

  it('a lock held from another host or container is refused, even under a pid that is not running here', async () => {
    const foreign = { pid: 2 ** 22 + 1, started: null, host: 'elsewhere/boot', command: 'src/main.ts', since: new Date().toISOString() };
    await writeFile(join(root, LOCK_FILE), JSON.stringify(foreign));
    const error = await refusal(lockDataDir(root));
    expect(error).to.be.instanceOf(DataDirInUseError);
    expect((error as Error).message)
      .to.contain('elsewhere/boot')
      .and.contain(`remove ${LOCK_FILE}`);
    expect(JSON.parse(await readFile(join(root, LOCK_FILE), 'utf8'))).to.deep.equal(foreign);
  });

  it('a check of a DATA_DIR that does not exist creates nothing', async () => {
    const dataDir = join(root, 'absent');
    await refuseWhileInUse(dataDir);
    expect(await refusal(access(dataDir))).to.not.equal(null);
  });
});
