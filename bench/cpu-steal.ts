import { readFile } from 'node:fs/promises';

/** The machine's CPU time since boot, in clock ticks: all of it, idle (iowait included), and what the hypervisor gave other guests. */
export type CpuTimes = { readonly total: number; readonly idle: number; readonly steal: number };

/**
 * The aggregate `cpu` line of /proc/stat (proc(5)): user nice system idle iowait irq softirq steal
 * guest guest_nice. Guest time is already counted in user and nice, so the total stops at steal.
 */
export function cpuTimesOf(procStat: string): CpuTimes | null {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
  const ticks = line?.trim().split(/\s+/).slice(1, 9).map(Number);
  if (!ticks || ticks.length < 8 || ticks.some((t) => !Number.isFinite(t))) return null;
  return { total: ticks.reduce((a, b) => a + b, 0), idle: ticks[3]! + ticks[4]!, steal: ticks[7]! };
}

/**
 * The share of the machine's CPU time taken by the hypervisor between two readings, in percent.
 * Bounded to 0–100: the kernel's counters may step back (iowait does, per CPU).
 */
export function stealPercent(from: CpuTimes, to: CpuTimes): number {
  const total = to.total - from.total;
  return total > 0 ? Math.min(100, Math.max(0, (100 * (to.steal - from.steal)) / total)) : 0;
}

/**
 * CPU steal per window: on a shared host the hypervisor may give this VM's time to other guests,
 * and every process here, the load generator's too, stalls with it. A window whose tail moved with
 * its steal was the host's, not the service's (docs/reliability.md, Soak). Null off Linux.
 */
export class StealSamples {
  private constructor(
    private last: CpuTimes | null,
    private readonly read: () => Promise<CpuTimes | null>,
  ) {}

  /** From now; `read` gives the machine's CPU times (by default from /proc/stat). */
  static async start(read: () => Promise<CpuTimes | null> = readCpuTimes): Promise<StealSamples> {
    return new StealSamples(await read(), read);
  }

  /** Steal since the last window, in percent of the machine's CPU time. */
  async window(): Promise<number | null> {
    const now = await this.read();
    const share = this.last && now ? stealPercent(this.last, now) : null;
    this.last = now;
    return share;
  }
}

export async function readCpuTimes(): Promise<CpuTimes | null> {
  return cpuTimesOf(await readFile('/proc/stat', 'utf8').catch(() => ''));
}
