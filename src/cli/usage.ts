/** A command line the tool does not take: exit 2, with the usage. */
export class UsageError extends Error {}

/** Contract §10.12: `--help` (or `-h`) anywhere on a tool's command line prints its usage and exits 0, before any data is opened. */
export const asksForHelp = (argv: readonly string[]): boolean => argv.some((arg) => arg === '--help' || arg === '-h');

/** The command line of a tool that takes no arguments: help, or run; anything else is a usage error. */
export function noArguments(argv: readonly string[], usage: string): 'help' | 'run' {
  if (asksForHelp(argv)) return 'help';
  if (argv.length > 0) throw new UsageError(`unknown argument ${JSON.stringify(argv[0]!.slice(0, 64))}\n${usage}`);
  return 'run';
}
