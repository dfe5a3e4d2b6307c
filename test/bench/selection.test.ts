import { expect } from 'chai';
import { resultsFileFor } from '../../bench/results-file.js';
import { BENCH_PARTS, BenchSelectionError, benchSelection } from '../../bench/selection.js';

const fileName = (url: URL | null) => url?.pathname.split('/').at(-1) ?? null;

describe('npm run bench: narrowing a run (BENCH_ONLY, BENCH_WORKLOADS, BENCH_CLIENTS)', () => {
  it('runs every part, workload and client count, and the reactor lag, when nothing narrows it', () => {
    for (const env of [{}, { BENCH_ONLY: '', BENCH_WORKLOADS: '  ', BENCH_CLIENTS: '' }]) {
      const all = benchSelection(env);
      expect([...all.parts]).to.deep.equal([...BENCH_PARTS]);
      expect(all.workloads).to.equal(null);
      expect(all.clients).to.equal(null);
      expect(all.narrowed).to.equal(false);
    }
  });

  it('a whole run replaces bench/results.json on PostgreSQL, bench/results-embedded.json embedded', () => {
    expect(fileName(resultsFileFor(benchSelection({}), true))).to.equal('results.json');
    expect(fileName(resultsFileFor(benchSelection({}), false))).to.equal('results-embedded.json');
  });

  it('keep at 16 clients alone: the one-instance commands with that workload, and no results file replaced', () => {
    const one = benchSelection({ BENCH_ONLY: 'commands', BENCH_WORKLOADS: 'keep', BENCH_CLIENTS: '16' });
    expect([...one.parts]).to.deep.equal(['commands']);
    expect([...(one.workloads ?? [])]).to.deep.equal(['keep']);
    expect(one.clients).to.deep.equal([16]);
    expect(resultsFileFor(one, true)).to.equal(null);
  });

  it('any one setting narrows the run, and a profiled run replaces no results file either', () => {
    for (const env of [{ BENCH_ONLY: 'limits,peer' }, { BENCH_WORKLOADS: 'publish, adopt' }, { BENCH_CLIENTS: '1,64' }]) {
      expect(benchSelection(env).narrowed, JSON.stringify(env)).to.equal(true);
      expect(resultsFileFor(benchSelection(env), true), JSON.stringify(env)).to.equal(null);
    }
    const profiled = benchSelection({ BENCH_CPU_PROF: '/tmp/prof' });
    expect(profiled.narrowed).to.equal(false);
    expect(resultsFileFor(profiled, true)).to.equal(null);
    expect([...(benchSelection({ BENCH_WORKLOADS: 'publish, adopt' }).workloads ?? [])]).to.deep.equal(['publish', 'adopt']);
  });

  it('a name it does not know stops the run before it starts, naming the ones it knows', () => {
    expect(() => benchSelection({ BENCH_ONLY: 'commands,replays' })).to.throw(
      BenchSelectionError,
      'BENCH_ONLY: unknown replays; known: limits, peer, commands, instances, lag, eventstore, replay',
    );
    expect(() => benchSelection({ BENCH_WORKLOADS: 'kept' })).to.throw(
      BenchSelectionError,
      'BENCH_WORKLOADS: unknown kept; known: floor-org, floor-user, publish',
    );
  });

  it('so does a setting that the parts chosen would ignore', () => {
    expect(() => benchSelection({ BENCH_ONLY: 'limits', BENCH_WORKLOADS: 'keep' })).to.throw(BenchSelectionError, 'BENCH_WORKLOADS');
    expect(() => benchSelection({ BENCH_ONLY: 'instances', BENCH_CLIENTS: '16' })).to.throw(BenchSelectionError, 'BENCH_CLIENTS');
    expect(benchSelection({ BENCH_ONLY: 'instances', BENCH_WORKLOADS: 'keep' }).narrowed).to.equal(true);
  });

  it('client counts are whole numbers from 1 to 1,024, each measured once', () => {
    for (const bad of ['0', '16,x', '2.5', '1e3', '0x10', '1025', '-1', '16,,64', '016'])
      expect(() => benchSelection({ BENCH_CLIENTS: bad }), bad).to.throw(BenchSelectionError, 'BENCH_CLIENTS');
    expect(benchSelection({ BENCH_CLIENTS: ' 1, 1024 ' }).clients).to.deep.equal([1, 1024]);
    expect(benchSelection({ BENCH_CLIENTS: '16,16,64' }).clients).to.deep.equal([16, 64]);
  });
});
