import { readFile } from 'node:fs/promises';
import { readCpuTimes, type CpuTimes } from './cpu-steal.js';

/** Clock ticks a second in /proc (USER_HZ): 100 on Linux, whatever the kernel's own tick rate. */
const TICKS_PER_SECOND = 100;
const MS_PER_TICK = 1000 / TICKS_PER_SECOND;

/**
 * The CPU time a run took, in ms: the service's processes, this process (the load generator), and
 * the rest of the machine's busy time, which on the bench's machine is PostgreSQL's (and the
 * kernel's work for all of them). A figure that, unlike a rate, does not move with the host's
 * other guests: the time the host gives elsewhere is steal, counted in none of them.
 */
export type CpuSpent = { readonly serviceMs: number; readonly benchMs: number; readonly restMs: number };

/** Where the times come from: /proc on Linux, anything in a test. */
export type CpuReaders = {
  readonly machine: () => Promise<CpuTimes | null>;
  /** User and system time of a process so far, in ticks. */
  readonly processTicks: (pid: number) => Promise<number | null>;
  /** This process's user and system time so far, in ms. */
  readonly selfMs: () => number;
};

/**
 * A process's user and system time, in ticks, from its /proc/<pid>/stat (proc(5): fields 14 and
 * 15). The command name, field 2, may hold spaces and parentheses: fields count from its last ')'.
 */
export function processTicksOf(procPidStat: string): number | null {
  const fields = procPidStat.slice(procPidStat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime] = [Number(fields[11]), Number(fields[12])];
  return Number.isFinite(utime) && Number.isFinite(stime) && fields.length > 12 ? utime + stime : null;
}

const linux: CpuReaders = {
  machine: readCpuTimes,
  processTicks: async (pid) => processTicksOf(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')),
  selfMs: () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
};

type Reading = { readonly machine: CpuTimes; readonly service: number; readonly selfMs: number };

/** CPU time spent from `start` on, split between the service, the load generator and the rest. */
export class CpuMeter {
  private constructor(
    private readonly pids: readonly number[],
    private readonly readers: CpuReaders,
    private readonly from: Reading | null,
  ) {}

  static async start(pids: readonly number[], readers: CpuReaders = linux): Promise<CpuMeter> {
    return new CpuMeter(pids, readers, await read(pids, readers));
  }

  /** Since start; null when a time could not be read (off Linux, or a service process gone). */
  async spent(): Promise<CpuSpent | null> {
    const to = await read(this.pids, this.readers);
    if (!this.from || !to) return null;
    const busy = (t: CpuTimes) => t.total - t.idle - t.steal;
    const serviceMs = (to.service - this.from.service) * MS_PER_TICK;
    const benchMs = to.selfMs - this.from.selfMs;
    const machineMs = (busy(to.machine) - busy(this.from.machine)) * MS_PER_TICK;
    return { serviceMs, benchMs, restMs: Math.max(0, machineMs - serviceMs - benchMs) };
  }
}

/**
 * The CPU time per request answered: the measured process's (`who`: the service, the bare server),
 * the rest of the machine's (PostgreSQL, mostly) and the load generator's. Their sum bounds the
 * rate the machine's cores can reach, and moves far less with the host than the rate does.
 */
export function cpuNote(spent: CpuSpent | null, requests: number, who: string, per = 'a request'): string | null {
  if (!spent || requests === 0) return null;
  const ms = (total: number) => `${(total / requests).toFixed(2)} ms`;
  return `CPU ${per}: ${who} ${ms(spent.serviceMs)}, PostgreSQL and the rest ${ms(spent.restMs)}, load generator ${ms(spent.benchMs)}`;
}

async function read(pids: readonly number[], readers: CpuReaders): Promise<Reading | null> {
  const [machine, ...services] = await Promise.all([readers.machine(), ...pids.map(readers.processTicks)]);
  if (!machine || services.some((t) => t === null)) return null;
  return { machine, service: services.reduce<number>((a, b) => a + (b ?? 0), 0), selfMs: readers.selfMs() };
}
