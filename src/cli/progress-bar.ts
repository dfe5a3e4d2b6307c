import type { ReplayProgress } from '../projections/replay.js';

const WIDTH = 30;

/** One line, redrawn in place on a terminal and printed every few seconds elsewhere (CI logs). */
export function progressLine(p: ReplayProgress): string {
  const rate = p.elapsedMs > 0 ? Math.round((p.events * 1000) / p.elapsedMs) : 0;
  const count = `${p.events.toLocaleString('en-US')}${p.total !== null ? `/${p.total.toLocaleString('en-US')}` : ''} events`;
  if (p.total === null || p.total === 0) return `${count}  ${rate.toLocaleString('en-US')} events/s`;
  const done = Math.min(1, p.events / p.total);
  const filled = Math.round(done * WIDTH);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}]`;
  return `${bar} ${(done * 100).toFixed(0).padStart(3)}%  ${count}  ${rate.toLocaleString('en-US')} events/s`;
}

export function progressPrinter(stream: NodeJS.WriteStream): (p: ReplayProgress) => void {
  let lastPrinted = 0;
  return (p) => {
    if (stream.isTTY) {
      stream.write(`\r${progressLine(p)}`);
    } else if (Date.now() - lastPrinted > 2000 || p.events === p.total) {
      lastPrinted = Date.now();
      stream.write(`${progressLine(p)}\n`);
    }
  };
}
