/** One figure of the bench table. `section` groups rows; `ratio` compares a row with its reference line. */
export type Row = {
  readonly section: 'limits' | 'peer' | 'commands' | 'projection' | 'replay' | 'identity' | 'memory' | 'instances';
  readonly name: string;
  readonly clients?: number;
  readonly count?: number;
  readonly perSecond?: number;
  readonly p50ms?: number;
  readonly p99ms?: number;
  readonly errors?: number;
  /** e.g. "2.31× Emmett" or "47% of bare HTTP". */
  readonly ratio?: string;
  readonly note?: string;
};

/** `row` with its share of `base` (a rate at its client count) added to its ratio, when both were measured. */
export function withShareOf(row: Row, base: number | undefined, of: string): Row {
  if (!base || row.perSecond === undefined) return row;
  const share = `${Math.round((100 * row.perSecond) / base)}% of ${of}`;
  return { ...row, ratio: row.ratio ? `${row.ratio}; ${share}` : share };
}

/**
 * Connections of the uncounted run that warms a server up before its rows (the targets' 16): the
 * service's workloads (commands.ts) and the bare HTTP server (limits.ts) warm up alike.
 */
export const WARM_UP_CLIENTS = 16;

/** Seconds the function took. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const number = (n: number | undefined, digits = 0) =>
  n === undefined ? '' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function table(rows: readonly Row[]): string {
  const header = ['section', 'what', 'clients', 'count', 'per second', 'p50 ms', 'p99 ms', 'errors', 'ratio', 'note'];
  const body = rows.map((r) => [
    r.section,
    r.name,
    number(r.clients),
    number(r.count),
    number(r.perSecond),
    number(r.p50ms, 2),
    number(r.p99ms, 2),
    number(r.errors),
    r.ratio ?? '',
    r.note ?? '',
  ]);
  const numeric = new Set([2, 3, 4, 5, 6, 7]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w, i) => (numeric.has(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`,
    ...body.map(line),
  ].join('\n');
}
