import { expect } from 'chai';
import { cpuTimesOf, StealSamples, stealPercent } from '../../bench/cpu-steal.js';

/** Issue 16, soak: the host's CPU steal beside each window, to tell a host's stall from the service's. */
describe('soak CPU steal: the share of the machine the hypervisor gave away in a window (issue 16)', () => {
  const stat = (user: number, idle: number, steal: number) =>
    `cpu  ${user} 0 100 ${idle} 10 0 5 ${steal} 40 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 12345\n`;

  it('reads the aggregate cpu line of /proc/stat up to steal, guest time being in user already', () => {
    expect(cpuTimesOf(stat(1000, 5000, 300))).to.deep.equal({ total: 1000 + 100 + 5000 + 10 + 5 + 300, idle: 5000 + 10, steal: 300 });
  });

  it('gives steal in percent of all the CPU time between two readings', () => {
    const from = cpuTimesOf(stat(1000, 5000, 300))!;
    const to = cpuTimesOf(stat(1600, 5300, 400))!;
    expect(stealPercent(from, to)).to.equal(10);
    expect(stealPercent(from, from)).to.equal(0);
  });

  it('knows no times in a text without the cpu line, or with fewer than eight figures', () => {
    expect(cpuTimesOf('')).to.equal(null);
    expect(cpuTimesOf('cpu  1 2 3 4 5 6 7\n')).to.equal(null);
  });

  it('bounds a reading whose counters stepped back to 0-100', () => {
    expect(stealPercent(cpuTimesOf(stat(1000, 5000, 300))!, cpuTimesOf(stat(1000, 5000, 250))!)).to.equal(0);
    expect(stealPercent({ total: 100, idle: 0, steal: 0 }, { total: 110, idle: 0, steal: 20 })).to.equal(100);
  });

  it('gives each window the steal since the one before, and none while the times cannot be read', async () => {
    const readings = [stat(1000, 5000, 300), stat(1600, 5300, 400), stat(1900, 5600, 400), '', stat(2000, 5700, 500)];
    const steal = await StealSamples.start(async () => cpuTimesOf(readings.shift() ?? ''));
    expect(await steal.window()).to.equal(10);
    expect(await steal.window()).to.equal(0);
    expect(await steal.window()).to.equal(null);
    expect(await steal.window()).to.equal(null);
  });
});
