import { expect } from 'chai';
import type { SoakWindow } from '../../bench/soak.js';
import { soakTable, verdicts } from '../../bench/soak-report.js';

/** Ten steady minutes, each changed as the test says. */
function minutes(change: (w: SoakWindow) => Partial<SoakWindow> = () => ({})): SoakWindow[] {
  return Array.from({ length: 10 }, (_, i) => {
    const w: SoakWindow = {
      window: i + 1,
      requests: 6000,
      perSecond: 100,
      p50ms: 8,
      p99ms: 40,
      maxMs: 120,
      errors: 0,
      failures: '',
      rssMb: 240,
      rssMinMb: 180,
      rssMaxMb: 310,
      queuedJobs: 0,
      serviceLoopMaxMs: 21.5,
      benchLoopMaxMs: 12.3,
      stealPercent: 4.25,
    };
    return { ...w, ...change(w) };
  });
}

const failed = (windows: SoakWindow[]) => verdicts(windows).filter((v) => !v.ok);

describe('soak verdicts: no error, RSS and p99 of the last minute against the second (issue 16)', () => {
  it('passes a steady run, whatever the first minute did while warming up', () => {
    const windows = minutes((w) => (w.window === 1 ? { p99ms: 900, rssMb: 150 } : {}));
    expect(failed(windows)).to.deep.equal([]);
    expect(verdicts(windows).map((v) => v.what)).to.deep.equal([
      'no error',
      'RSS of window 10 within 10% of window 2',
      'p99 of window 10 within 20% of window 2',
    ]);
  });

  it('fails on a single error, saying which minute and what it was', () => {
    const windows = minutes((w) => (w.window === 7 ? { errors: 1, failures: '1× 409 version_conflict (correct)' } : {}));
    expect(failed(windows)).to.deep.equal([{ what: 'no error', ok: false, detail: 'window 7: 1× 409 version_conflict (correct)' }]);
  });

  it('fails when the last minute holds more than 10% more memory than the second, not at 10%', () => {
    expect(failed(minutes((w) => (w.window === 10 ? { rssMb: 264 } : {})))).to.deep.equal([]);
    expect(failed(minutes((w) => (w.window === 10 ? { rssMb: 265 } : {})))).to.deep.equal([
      {
        what: 'RSS of window 10 within 10% of window 2',
        ok: false,
        detail: '240 MB → 265 MB (10.4%; medians of their per-second samples)',
      },
    ]);
  });

  it('fails when the last minute p99 moved more than 20% from the second, either way', () => {
    expect(failed(minutes((w) => (w.window === 10 ? { p99ms: 48 } : {})))).to.deep.equal([]);
    expect(failed(minutes((w) => (w.window === 10 ? { p99ms: 49 } : {})))[0]).to.deep.include({
      ok: false,
      detail: '40.0 ms → 49.0 ms (22.5%)',
    });
    expect(failed(minutes((w) => (w.window === 10 ? { p99ms: 31 } : {})))[0]).to.deep.include({
      ok: false,
      detail: '40.0 ms → 31.0 ms (22.5%)',
    });
  });

  it('judges nothing with fewer than three windows', () => {
    expect(failed(minutes().slice(0, 2))).to.deep.equal([
      { what: 'windows', ok: false, detail: 'the soak needs more than 2 windows, it had 2' },
    ]);
  });

  it('prints a header and one row per window', () => {
    const lines = soakTable(minutes().slice(0, 3)).split('\n');
    expect(lines).to.have.length(5);
    expect(lines[0]).to.equal(
      '| window | requests | per second | p50 ms | p99 ms | max ms | errors | jobs queued | RSS MB | RSS range MB |' +
        ' service loop max ms | bench loop max ms | CPU steal % |',
    );
    expect(lines[4]).to.equal(
      '|      3 |     6000 |      100.0 |    8.0 |   40.0 |  120.0 |      0 |           0 |    240 |      180–310 |' +
        '                21.5 |              12.3 |         4.3 |',
    );
  });

  it('prints a dash for the steal of a machine that does not report it', () => {
    const [row] = soakTable(minutes((w) => ({ window: w.window, stealPercent: null })).slice(0, 1))
      .split('\n')
      .slice(2);
    expect(row).to.match(/ {11}– \|$/);
  });
});
