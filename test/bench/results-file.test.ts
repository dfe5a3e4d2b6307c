import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeResults } from '../../bench/results-file.js';

describe("a bench run's results file (bench/results.json, bench/soak-results.json)", () => {
  let dir: string;
  let file: URL;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dss-results-'));
    file = pathToFileURL(join(dir, 'results.json'));
    await writeFile(file, '{"rows": ["the last run"]}\n');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('is replaced by the new run, as indented JSON, with nothing left beside it', async () => {
    await writeResults(file, { rows: [{ name: 'keep', perSecond: 404 }] });
    expect(JSON.parse(await readFile(file, 'utf8'))).to.deep.equal({ rows: [{ name: 'keep', perSecond: 404 }] });
    expect(await readFile(file, 'utf8')).to.match(/^\{\n {2}"rows"/);
    expect(await readdir(dir)).to.deep.equal(['results.json']);
  });

  it('stays the last run whole when the new one cannot be written', async () => {
    // The file the new results go to first cannot be written: a directory holds its name.
    await mkdir(join(dir, 'results.json.partial'));
    const failed = await writeResults(file, { rows: ['the new run'] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failed).to.be.instanceOf(Error);
    expect(await readFile(file, 'utf8')).to.equal('{"rows": ["the last run"]}\n');
  });
});
