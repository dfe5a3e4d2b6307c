/**
 * Which parts of `npm run bench` run: all of them unless the environment narrows it. A full run
 * takes 15 to 25 minutes; one row (say keep at 16 clients) takes a minute, which is what a
 * change to one command's path needs measured, again and again.
 */

/** The bench's parts on PostgreSQL, in the order a run takes them. */
export const BENCH_PARTS = ['limits', 'peer', 'commands', 'instances', 'lag', 'eventstore', 'replay'] as const;
export type BenchPart = (typeof BENCH_PARTS)[number];

/** The workloads of the commands and instances parts, by the short name the environment uses. */
export const BENCH_WORKLOADS = [
  'floor-org',
  'floor-user',
  'publish',
  'keep',
  'correct',
  'adopt',
  'drain',
  'logins',
  'token-checks',
] as const;
export type BenchWorkload = (typeof BENCH_WORKLOADS)[number];

export type BenchSelection = {
  readonly parts: ReadonlySet<BenchPart>;
  /** The workloads of `commands` and `instances` when narrowed; null: every one, and the reactor lag. */
  readonly workloads: ReadonlySet<BenchWorkload> | null;
  /** Client counts of the one-instance commands, when narrowed. */
  readonly clients: readonly number[] | null;
  /** Whether any of the three leaves part of the bench out. */
  readonly narrowed: boolean;
  /**
   * Whether the run replaces its results file: a whole run, not profiled (BENCH_CPU_PROF slows
   * the service by about a fifth, so its figures are not the table's).
   */
  readonly replacesResults: boolean;
};

/** A setting the bench cannot run with: said in one line, without a stack. */
export class BenchSelectionError extends Error {}

/** Client counts beyond this are a mistake (a typo of 16, 64): autocannon would open them all. */
const MOST_CLIENTS = 1024;

/**
 * BENCH_ONLY (parts), BENCH_WORKLOADS and BENCH_CLIENTS, each a comma-separated list. Throws on a
 * name it does not know, naming the ones it does, and on a setting the parts chosen would ignore,
 * rather than run many minutes of something else.
 */
export function benchSelection(env: Readonly<Record<string, string | undefined>>): BenchSelection {
  const parts = new Set(listOf(env, 'BENCH_ONLY', BENCH_PARTS) ?? BENCH_PARTS);
  const workloads = listOf(env, 'BENCH_WORKLOADS', BENCH_WORKLOADS);
  const clients = clientsOf(env.BENCH_CLIENTS);
  if (workloads && !parts.has('commands') && !parts.has('instances'))
    throw new BenchSelectionError('BENCH_WORKLOADS chooses loads of the commands and instances parts, and BENCH_ONLY leaves both out');
  if (clients && !parts.has('commands'))
    throw new BenchSelectionError('BENCH_CLIENTS sets the client counts of the commands part, and BENCH_ONLY leaves it out');
  const narrowed = parts.size < BENCH_PARTS.length || workloads !== null || clients !== null;
  return { parts, workloads: workloads && new Set(workloads), clients, narrowed, replacesResults: !narrowed && !env.BENCH_CPU_PROF };
}

function listOf<T extends string>(env: Readonly<Record<string, string | undefined>>, name: string, known: readonly T[]): T[] | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  const names = raw.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !(known as readonly string[]).includes(n));
  if (unknown.length > 0) throw new BenchSelectionError(`${name}: unknown ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return names as T[];
}

function clientsOf(raw: string | undefined): number[] | null {
  if (!raw?.trim()) return null;
  const counts = raw.split(',').map((n) => n.trim());
  if (counts.some((n) => !/^[1-9][0-9]*$/.test(n) || Number(n) > MOST_CLIENTS))
    throw new BenchSelectionError(`BENCH_CLIENTS: whole numbers from 1 to ${MOST_CLIENTS}, comma-separated (got ${raw})`);
  return [...new Set(counts.map(Number))];
}
