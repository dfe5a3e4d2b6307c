/**
 * How V8 collects this service's heap (docs/decisions.md, "Garbage collection"). The flags go on
 * node's command line (`npm start` passes them): V8 reads them as it starts. Set later, from the
 * running process (v8.setFlagsFromString), switching concurrent marking off while a marking cycle
 * ran crashed the process at start ("unreachable code", SIGSEGV; docs/reliability.md, defects).
 * - `--heap-growing-percent=60`: the old generation may grow by 60% of what survived its last full
 *   collection before the next, not by up to 100%. At the default the RSS swung by 30-190 MB of
 *   garbage from minute to minute under steady traffic; at 60% a minute's swing is about 10 MB,
 *   with a full collection every 15 s at 100 requests/s rather than every 5 s at 30%.
 * - `--no-concurrent-marking`: a full collection marks on the main thread, in small steps between
 *   requests, instead of on a helper thread beside it. On a small machine shared with PostgreSQL
 *   the helper thread took the CPU the database needed, so every request in flight while it ran
 *   slowed at once: 96% of the soak's answers over 30 ms fell in the 300 ms before a full
 *   collection's pause; without the helper thread a minute's max fell from 60-130 ms to 25-53 ms
 *   (once 128 ms in twenty minutes).
 */
export const SERVICE_V8_FLAGS: readonly string[] = ['--heap-growing-percent=60', '--no-concurrent-marking'];

/** `--no-foo=1` → `foo`: the setting a flag names, whichever way it is spelled. */
function settingOf(flag: string): string {
  return flag
    .replace(/^--(no-)?/, '')
    .replace(/=.*$/, '')
    .replaceAll('_', '-');
}

/**
 * The flags of `ours` the process did not start with: those whose setting neither the command line
 * nor NODE_OPTIONS chose, either way (`node --concurrent-marking src/main.ts` chose V8's default).
 */
export function unchosenFlags(ours: readonly string[], execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const chosen = new Set([...execArgv, ...(nodeOptions ?? '').split(/\s+/)].filter((a) => a.startsWith('--')).map(settingOf));
  return ours.filter((flag) => !chosen.has(settingOf(flag)));
}

/** The service's flags this process started without: the service says so at start, and runs on. */
export function missingV8Flags(): string[] {
  return unchosenFlags(SERVICE_V8_FLAGS, process.execArgv, process.env.NODE_OPTIONS);
}
