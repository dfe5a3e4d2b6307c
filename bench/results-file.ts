import { rename, writeFile } from 'node:fs/promises';
import type { BenchSelection } from './selection.js';

/**
 * A run's results as JSON, written whole or not at all: into a file beside it, then renamed over
 * it. Written in place, a run cut off mid-write (its output piped into a pager that quit) left the
 * last run's file empty.
 */
export async function writeResults(file: URL, results: unknown): Promise<void> {
  const partial = new URL(`${file.href}.partial`);
  await writeFile(partial, `${JSON.stringify(results, null, 2)}\n`);
  await rename(partial, file);
}

/**
 * Where a run's results go: bench/results.json for a whole run on PostgreSQL, the one
 * docs/performance.md ("Where the service stands") quotes; bench/results-embedded.json for the embedded rows, which would
 * otherwise replace PostgreSQL's; nowhere for a narrowed or profiled run.
 */
export function resultsFileFor(selection: Pick<BenchSelection, 'replacesResults'>, onPostgres: boolean): URL | null {
  if (!selection.replacesResults) return null;
  return new URL(onPostgres ? './results.json' : './results-embedded.json', import.meta.url);
}
