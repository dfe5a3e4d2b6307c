import type { SoakWindow } from './soak.js';

export type SoakVerdict = { readonly what: string; readonly ok: boolean; readonly detail: string };

/** The window the last is compared with: the first also pays for the warm-up (JIT, caches, pools). */
const REFERENCE = 2;
const RSS_DRIFT = 0.1;
const P99_DRIFT = 0.2;

/**
 * The issue's bar: no error; the last window's RSS within 10% and its p99 within 20% of the
 * second window's. "Within" both ways: a p99 that fell by a fifth says the second window was still
 * warming up, and its figures are no reference.
 */
export function verdicts(windows: readonly SoakWindow[]): SoakVerdict[] {
  const reference = windows[REFERENCE - 1];
  const last = windows[windows.length - 1];
  if (!reference || !last || last === reference) {
    return [{ what: 'windows', ok: false, detail: `the soak needs more than ${REFERENCE} windows, it had ${windows.length}` }];
  }
  const errors = windows.reduce((n, w) => n + w.errors, 0);
  const drift = (from: number, to: number) => (from === 0 ? Infinity : Math.abs(to - from) / from);
  const percent = (share: number) => `${Math.round(share * 100)}%`;
  const moved = (share: number) => `${(share * 100).toFixed(1)}%`;
  const rss = drift(reference.rssMb, last.rssMb);
  const p99 = drift(reference.p99ms, last.p99ms);
  return [
    {
      what: 'no error',
      ok: errors === 0,
      detail: errors === 0 ? '0 errors' : windows.flatMap((w) => (w.errors ? [`window ${w.window}: ${w.failures}`] : [])).join('; '),
    },
    {
      what: `RSS of window ${last.window} within ${percent(RSS_DRIFT)} of window ${REFERENCE}`,
      ok: rss <= RSS_DRIFT,
      detail: `${reference.rssMb} MB → ${last.rssMb} MB (${moved(rss)}; medians of their per-second samples)`,
    },
    {
      what: `p99 of window ${last.window} within ${percent(P99_DRIFT)} of window ${REFERENCE}`,
      ok: p99 <= P99_DRIFT,
      detail: `${ms(reference.p99ms)} ms → ${ms(last.p99ms)} ms (${moved(p99)})`,
    },
  ];
}

export function verdictLines(judged: readonly SoakVerdict[]): string {
  return judged.map((v) => `${v.ok ? 'ok  ' : 'FAIL'} ${v.what}: ${v.detail}`).join('\n');
}

const COLUMNS = [
  'window',
  'requests',
  'per second',
  'p50 ms',
  'p99 ms',
  'max ms',
  'errors',
  'jobs queued',
  'RSS MB',
  'RSS range MB',
  'service loop max ms',
  'bench loop max ms',
  'CPU steal %',
];

/** The header, then a row per window: fixed widths, so rows printed as their windows end line up. */
export function tableHeader(): string {
  return `${line(COLUMNS)}\n|${COLUMNS.map((c) => `${'-'.repeat(c.length + 1)}:`).join('|')}|`;
}

export function tableRow(w: SoakWindow): string {
  return line([
    w.window,
    w.requests,
    w.perSecond.toFixed(1),
    ms(w.p50ms),
    ms(w.p99ms),
    ms(w.maxMs),
    w.errors,
    w.queuedJobs,
    w.rssMb,
    `${w.rssMinMb}–${w.rssMaxMb}`,
    ms(w.serviceLoopMaxMs),
    ms(w.benchLoopMaxMs),
    w.stealPercent === null ? '–' : w.stealPercent.toFixed(1),
  ]);
}

export function soakTable(windows: readonly SoakWindow[]): string {
  return [tableHeader(), ...windows.map(tableRow)].join('\n');
}

const ms = (n: number) => n.toFixed(1);

function line(cells: ReadonlyArray<string | number>): string {
  return `| ${cells.map((c, i) => String(c).padStart(COLUMNS[i]!.length)).join(' | ')} |`;
}
