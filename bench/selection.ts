/**
 * Which parts of `npm run bench` run: all of them unless the environment narrows it. A full run
 * takes a quarter of an hour; one row (say keep at 16 clients) takes a minute, which is what a
 * change to one command's path needs measured, again and again.
 */

/** The bench's parts on PostgreSQL, in the order a run takes them. */
export const BENCH_PARTS = ['limits', 'peer', 'commands', 'instances', 'lag', 'replay'] as const;
export type BenchPart = (typeof BENCH_PARTS)[number];

/** The workloads of the commands and instances parts, by the short name the environment uses. */
export const BENCH_WORKLOADS = ['publish', 'keep', 'correct', 'adopt', 'logins', 'token-checks'] as const;
export type BenchWorkload = (typeof BENCH_WORKLOADS)[number];

export type BenchSelection = {
  readonly parts: ReadonlySet<BenchPart>;
  readonly workloads: ReadonlySet<BenchWorkload>;
  /** Client counts of the one-instance commands, when narrowed. */
  readonly clients: readonly number[] | null;
  /** Whether this is the whole bench: only then does it replace bench/results.json. */
  readonly whole: boolean;
};

/** A setting the bench cannot run with: said in one line, without a stack. */
export class BenchSelectionError extends Error {}

/** Client counts beyond this are a mistake (a typo of 16, 64): autocannon would open them all. */
const MOST_CLIENTS = 1024;

/**
 * BENCH_ONLY (parts), BENCH_WORKLOADS and BENCH_CLIENTS, each a comma-separated list. Throws on a
 * name it does not know, naming the ones it does, rather than run a quarter of an hour of
 * something else.
 */
export function benchSelection(env: Readonly<Record<string, string | undefined>>): BenchSelection {
  const parts = listOf(env, 'BENCH_ONLY', BENCH_PARTS);
  const workloads = listOf(env, 'BENCH_WORKLOADS', BENCH_WORKLOADS);
  const clients = clientsOf(env.BENCH_CLIENTS);
  return {
    parts: new Set(parts ?? BENCH_PARTS),
    workloads: new Set(workloads ?? BENCH_WORKLOADS),
    clients,
    whole: parts === null && workloads === null && clients === null,
  };
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
  return counts.map(Number);
}
