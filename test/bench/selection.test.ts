import { expect } from 'chai';
import { BENCH_PARTS, BENCH_WORKLOADS, BenchSelectionError, benchSelection } from '../../bench/selection.js';

describe('npm run bench: narrowing a run (BENCH_ONLY, BENCH_WORKLOADS, BENCH_CLIENTS)', () => {
  it('runs every part, workload and client count, and replaces results.json, when nothing narrows it', () => {
    for (const env of [{}, { BENCH_ONLY: '', BENCH_WORKLOADS: '  ', BENCH_CLIENTS: '' }]) {
      const all = benchSelection(env);
      expect([...all.parts]).to.deep.equal([...BENCH_PARTS]);
      expect([...all.workloads]).to.deep.equal([...BENCH_WORKLOADS]);
      expect(all.clients).to.equal(null);
      expect(all.whole).to.equal(true);
    }
  });

  it('keep at 16 clients alone: the one-instance commands with that workload, and results.json left alone', () => {
    const one = benchSelection({ BENCH_ONLY: 'commands', BENCH_WORKLOADS: 'keep', BENCH_CLIENTS: '16' });
    expect([...one.parts]).to.deep.equal(['commands']);
    expect([...one.workloads]).to.deep.equal(['keep']);
    expect(one.clients).to.deep.equal([16]);
    expect(one.whole).to.equal(false);
  });

  it('any one setting narrows the run', () => {
    for (const env of [{ BENCH_ONLY: 'limits,peer' }, { BENCH_WORKLOADS: 'publish, adopt' }, { BENCH_CLIENTS: '1,64' }]) {
      expect(benchSelection(env).whole, JSON.stringify(env)).to.equal(false);
    }
    expect([...benchSelection({ BENCH_WORKLOADS: 'publish, adopt' }).workloads]).to.deep.equal(['publish', 'adopt']);
  });

  it('a name it does not know stops the run before it starts, naming the ones it knows', () => {
    expect(() => benchSelection({ BENCH_ONLY: 'commands,replays' })).to.throw(
      BenchSelectionError,
      'BENCH_ONLY: unknown replays; known: limits, peer, commands, instances, lag, replay',
    );
    expect(() => benchSelection({ BENCH_WORKLOADS: 'kept' })).to.throw(
      BenchSelectionError,
      'BENCH_WORKLOADS: unknown kept; known: publish',
    );
  });

  it('client counts are whole numbers from 1 to 1,024', () => {
    for (const bad of ['0', '16,x', '2.5', '1e3', '0x10', '1025', '-1', '16,,64', '016'])
      expect(() => benchSelection({ BENCH_CLIENTS: bad }), bad).to.throw(BenchSelectionError, 'BENCH_CLIENTS');
    expect(benchSelection({ BENCH_CLIENTS: ' 1, 1024 ' }).clients).to.deep.equal([1, 1024]);
  });
});
