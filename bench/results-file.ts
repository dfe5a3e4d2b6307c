import { rename, writeFile } from 'node:fs/promises';

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
