import { expect } from 'chai';
import { runSoak } from '../../bench/soak.js';
import { soakTable, verdicts } from '../../bench/soak-report.js';

/**
 * Issue 16, soak: its machinery in CI, three windows of 3 s at 20 requests/s (`npm run soak` runs
 * ten of a minute at 100/s). The real service on the suite's backend: a scratch database of
 * DATABASE_URL's server, else the embedded PGlite in a data directory of its own.
 */
describe('soak: mixed traffic at a steady rate, latency and memory per window (issue 16)', function () {
  this.timeout(90_000);

  it('three windows of publishes, keeps, corrects, proposal adopts, reads and logins: every request answered 2xx, each row with real figures', async () => {
    const windows = await runSoak({ databaseUrl: process.env.DATABASE_URL ?? null, rate: 20, windows: 3, windowSeconds: 3 });
    const table = soakTable(windows);
    expect(windows.map((w) => w.window)).to.deep.equal([1, 2, 3]);
    for (const w of windows) {
      expect(w.errors, `${table}\n${w.failures}`).to.equal(0);
      // 60 due in each window, on a fixed schedule whatever the answers.
      expect(w.requests, table).to.equal(60);
      expect(w.perSecond, table).to.equal(20);
      expect(w.p50ms, table).to.be.greaterThan(0);
      expect(w.p99ms, table).to.be.at.least(w.p50ms);
      expect(w.maxMs, table).to.be.at.least(w.p99ms);
      expect(w.rssMb, table).to.be.within(w.rssMinMb, w.rssMaxMb);
      expect(w.rssMinMb, table).to.be.greaterThan(0);
      // Sampled every 10 ms: a real figure is never 0, nor a 10 s stall in a 3 s window.
      expect(w.serviceLoopMaxMs, table).to.be.within(1, 3000);
      expect(w.benchLoopMaxMs, table).to.be.within(1, 3000);
      if (process.platform === 'linux') expect(w.stealPercent, table).to.be.within(0, 100);
    }
    expect(table.split('\n'), table).to.have.length(2 + 3);
    expect(verdicts(windows)[0], table).to.deep.include({ what: 'no error', ok: true });
  });
});
