import { expect } from 'chai';
import { CpuMeter, cpuNote, processTicksOf, type CpuReaders } from '../../bench/cpu-spent.js';
import type { CpuTimes } from '../../bench/cpu-steal.js';

/** Issue 14: each command row says the CPU a request took, the service's and the rest of the machine's. */
describe("bench CPU a request: the service's, the load generator's and the rest of the machine's (issue 14)", () => {
  const pidStat = (comm: string, utime: number, stime: number) =>
    `4242 (${comm}) S 1 4242 4242 0 -1 4194560 9000 0 0 0 ${utime} ${stime} 0 0 20 0 11 0 123 456 789`;

  it("reads a process's user and system ticks, whatever its command name holds", () => {
    expect(processTicksOf(pidStat('node', 700, 50))).to.equal(750);
    expect(processTicksOf(pidStat('a) b (c', 700, 50))).to.equal(750);
    expect(processTicksOf('')).to.equal(null);
    expect(processTicksOf('4242 (node) S 1 2 3')).to.equal(null);
  });

  /** Readers that step through given readings: the machine's busy, idle and steal ticks, the service's ticks, the bench's ms. */
  function readers(steps: Array<{ busy: number; idle: number; steal: number; service: number | null; selfMs: number }>): CpuReaders {
    let i = 0;
    const now = () => steps[Math.min(i, steps.length - 1)]!;
    return {
      machine: async (): Promise<CpuTimes> => ({ total: now().busy + now().idle + now().steal, idle: now().idle, steal: now().steal }),
      processTicks: async () => now().service,
      selfMs: () => {
        const ms = now().selfMs;
        i++; // the last reader of a reading
        return ms;
      },
    };
  }

  it('splits the machine busy time between the service, the load generator and the rest; steal and idle count in none', async () => {
    const meter = await CpuMeter.start(
      [1],
      readers([
        { busy: 1000, idle: 5000, steal: 10, service: 300, selfMs: 2000 },
        // 1.5 s busy: the service 0.8 s, the bench 0.3 s, the rest 0.4 s; 20 ticks of steal and 50 idle change nothing.
        { busy: 1150, idle: 5050, steal: 30, service: 380, selfMs: 2300 },
      ]),
    );
    expect(await meter.spent()).to.deep.equal({ serviceMs: 800, benchMs: 300, restMs: 400 });
  });

  it('adds the CPU of every service instance, and knows nothing once a process cannot be read', async () => {
    const steps = [
      { busy: 0, idle: 0, steal: 0, service: 100, selfMs: 0 },
      { busy: 100, idle: 0, steal: 0, service: 130, selfMs: 0 },
    ];
    const two = await CpuMeter.start([1, 2], readers(steps));
    // Each of the two processes reads 30 ticks more: 600 ms in all, the rest 400.
    expect(await two.spent()).to.deep.equal({ serviceMs: 600, benchMs: 0, restMs: 400 });
    const gone = await CpuMeter.start([1], readers([steps[0]!, { ...steps[1]!, service: null }]));
    expect(await gone.spent()).to.equal(null);
  });

  it('says the time per request answered, each share apart, and nothing without a reading or an answer', () => {
    const spent = { serviceMs: 2110, benchMs: 400, restMs: 1290 };
    expect(cpuNote(spent, 1000, 'service')).to.equal(
      'CPU a request: service 2.11 ms, PostgreSQL and the rest 1.29 ms, load generator 0.40 ms',
    );
    expect(cpuNote(null, 1000, 'service')).to.equal(null);
    expect(cpuNote(spent, 0, 'server')).to.equal(null);
  });
});
