export type Row = { backend: string; operation: string; count: number; perSecond: number; p50ms?: number; p99ms?: number };

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

export function table(rows: readonly Row[]): string {
  const header = ['backend', 'operation', 'count', 'per second', 'p50 ms', 'p99 ms'];
  const body = rows.map((r) => [
    r.backend,
    r.operation,
    r.count.toLocaleString('en-US'),
    Math.round(r.perSecond).toLocaleString('en-US'),
    r.p50ms === undefined ? '' : r.p50ms.toFixed(2),
    r.p99ms === undefined ? '' : r.p99ms.toFixed(2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w, i) => (i >= 2 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`,
    ...body.map(line),
  ].join('\n');
}
