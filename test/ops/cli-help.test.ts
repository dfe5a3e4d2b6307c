import { expect } from 'chai';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedEnv, npmRun } from './support/processes.js';

const CLIS = ['replay', 'projections', 'keys', 'rotate-master-key', 'verify-log'] as const;

describe('§10.12 every npm run <cli> -- --help prints usage and exits 0 without opening any data', function () {
  this.timeout(60_000);
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'dss-help-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  for (const cli of CLIS) {
    it(`npm run ${cli} -- --help: usage on stdout, exit 0, no DATA_DIR created`, async () => {
      const dataDir = join(root, `${cli}-data`);
      // Keys a tool would act on if it ignored --help.
      const r = await npmRun(cli, ['--help'], embeddedEnv({ DATA_DIR: dataDir, OLD_MASTER_KEY: 'x', MASTER_KEY: 'y' }));
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.match(/^usage: npm run/);
      expect(r.stderr).to.equal('');
      const created = await access(dataDir).then(
        () => true,
        () => false,
      );
      expect(created, 'DATA_DIR was created').to.equal(false);
    });
  }
});
