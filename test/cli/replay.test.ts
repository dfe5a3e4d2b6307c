import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBackends, type Backends } from '../../src/backends.js';
import { parseReplayArgs } from '../../src/cli/replay-command.js';
import { UsageError } from '../../src/cli/usage.js';
import { loadConfig } from '../../src/config.js';
import { formatPosition, type Position } from '../../src/events/position.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent } from '../support/events.js';

type Outcome = { readonly code: number; readonly stdout: string; readonly stderr: string };

/** npm run replay in a process of its own, configured by `env` alone. */
function runReplay(args: readonly string[], env: Record<string, string>): Promise<Outcome> {
  const { DATABASE_URL: _db, EVENTSTORE_URL: _es, DATA_DIR: _dir, ...inherited } = process.env;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/replay.ts', ...args],
      { env: { ...inherited, ...env } },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(new Error(error.message));
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

const refusal = (argv: string[]): string => {
  try {
    parseReplayArgs(argv);
  } catch (e) {
    expect(e).to.be.instanceOf(UsageError);
    return (e as Error).message;
  }
  return expect.fail(`accepted ${argv.join(' ')}`);
};

describe('npm run replay: the time-travel arguments (R-TT-03)', () => {
  it('reads --until as a position the service prints, or as an ISO 8601 time with its offset', () => {
    expect(parseReplayArgs([])).to.deep.equal({ kind: 'replay' });
    expect(parseReplayArgs(['--until', '7543/1201', '--schema', 'debug_before'])).to.deep.equal({
      kind: 'time-travel',
      until: { kind: 'position', position: { commit: 7543n, prepare: 1201n } },
      schema: 'debug_before',
    });
    expect(parseReplayArgs(['--schema=debug_before', '--until=2026-11-23T10:15:00+01:00'])).to.deep.equal({
      kind: 'time-travel',
      until: { kind: 'time', at: new Date('2026-11-23T09:15:00.000Z') },
      schema: 'debug_before',
    });
    expect(parseReplayArgs(['--until', '1/2', '--help'])).to.deep.equal({ kind: 'help' });
  });

  it('refuses bad arguments with a message saying what is expected', () => {
    expect(refusal(['--until', '7543-1201', '--schema', 'x'])).to.match(/a position such as 7543\/1201 or an ISO 8601 time/);
    expect(refusal(['--until', '2026-02-30T00:00:00Z', '--schema', 'x'])).to.match(/ISO 8601/);
    expect(refusal(['--until', '2026-11-23T10:15:00', '--schema', 'x']), 'a local time is ambiguous').to.match(/ISO 8601/);
    expect(refusal(['--until', '1/2'])).to.match(/--until needs --schema/);
    expect(refusal(['--schema', 'x'])).to.match(/--schema goes with --until/);
    expect(refusal(['--until'])).to.match(/--until needs a value/);
    expect(refusal(['--until', '1/2', '--until', '1/3', '--schema', 'x'])).to.match(/given twice/);
    expect(refusal(['--since', '1/2'])).to.match(/unknown argument "--since"/);
    expect(refusal(['--until', '1/2', '--schema', 'x; DROP SCHEMA rm'])).to.match(/a schema name is/);
    expect(refusal(['--until', '1/2', '--schema', 'x'.repeat(65)])).to.match(/at most 64 characters/);
    expect(refusal(['--until', '1/2', '--schema', 'rm'])).to.match(/rm is the live read-model schema/);
  });
});

describe(`npm run replay --until --schema, a process of its own on ${mainBackend} (R-TT-03)`, function () {
  this.timeout(120_000);
  let dataDir: string;
  let server: TestDatabase | null = null;
  let env: Record<string, string>;
  const positions: Position[] = [];
  const withBackends = async <T>(fn: (b: Backends) => Promise<T>): Promise<T> => {
    const backends = await openBackends(loadConfig(env));
    try {
      return await fn(backends);
    } finally {
      await backends.close();
    }
  };

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'replay-cli-'));
    if (mainBackend === 'postgres') server = await openTestDatabase('postgres');
    env = server?.url ? { DATABASE_URL: server.url } : { DATA_DIR: dataDir };
    await withBackends(async (b) => {
      for (let i = 0; i < 5; i++)
        positions.push((await b.store.appendToStream(`note-${i % 2}`, [newEvent('Noted', { i })], 'any')).position);
    });
  });
  after(async () => {
    await server?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('builds into the named schema and says what it built where, up to which position', async () => {
    const until = formatPosition(positions[2]!);
    const { code, stdout } = await runReplay(['--until', until, '--schema', 'debug_cli'], env);
    expect(stdout).to.match(
      new RegExp(`^built \\d+ read models as of position ${until} into schema debug_cli: 3 events, the last at position ${until}, `),
    );
    expect(code).to.equal(0);
    const heads = await withBackends((b) => b.db.query('SELECT stream_id FROM debug_cli.stream_heads ORDER BY 1'));
    expect(heads.rows).to.deep.equal([{ stream_id: 'note-0' }, { stream_id: 'note-1' }]);
  });

  it('exits 2 with a message for bad arguments and for the live schema as target', async () => {
    const bad = await runReplay(['--until', 'yesterday', '--schema', 'debug_cli'], env);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/--until takes a position such as/);
    const live = await runReplay(['--until', formatPosition(positions[0]!), '--schema', 'rm'], env);
    expect(live.code).to.equal(2);
    expect(live.stderr).to.match(/rm is the live read-model schema/);
  });
});
