import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import * as source from '@dss/sdk';
import { generated, GENERATED } from '../../sdk/scripts/generate.js';

describe('the SDK’s types are generated from the service’s OpenAPI document as it is now (docs/sdk.md)', function () {
  this.timeout(60_000);

  it('sdk/src/openapi.ts is what openapi-typescript makes of the document: a change to the API is regenerated with `npm run generate -w @dss/sdk`', async () => {
    expect(await readFile(GENERATED, 'utf8')).to.equal(await generated());
  });

  it('the package builds to JavaScript that plain Node loads (no tsx, no development condition) with every export of the source', async () => {
    const run = promisify(execFile);
    const root = new URL('../../', import.meta.url).pathname;
    await run('npm', ['run', '-s', 'build', '-w', '@dss/sdk'], { cwd: root });
    const { stdout } = await run(
      process.execPath,
      ['--input-type=module', '-e', "console.log(Object.keys(await import('@dss/sdk')).join())"],
      {
        cwd: root,
        env: { PATH: process.env.PATH },
      },
    );
    expect(stdout.trim().split(',')).to.deep.equal(Object.keys(source));
  });
});
