import { CommanderError } from 'commander';
import { DssProblem } from '@dss/sdk';

/** The exit codes `dss --help` and docs/cli.md promise. */
export const Exit = { ok: 0, failure: 1, usage: 2, unauthenticated: 3, refused: 4, unavailable: 5 } as const;
export type ExitCode = (typeof Exit)[keyof typeof Exit];

/** A failure the CLI itself names (no credentials, a bad file), with the exit code it means. */
export class CliError extends Error {
  constructor(
    readonly exit: ExitCode,
    readonly code: string,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
  }
}

export const notSignedIn = (detail = 'run `dss login --url <url> --email <email>` first') =>
  new CliError(Exit.unauthenticated, 'not_signed_in', detail);

export const usage = (detail: string) => new CliError(Exit.usage, 'usage', detail);

/** The exit code of a failure and the line for stderr (none when commander printed it already). */
export function report(error: unknown): { readonly exit: ExitCode; readonly line?: string } {
  // Commander has printed its help or its error; a help asked for is a success.
  if (error instanceof CommanderError) return { exit: error.exitCode === 0 ? Exit.ok : Exit.usage };
  if (error instanceof CliError) return { exit: error.exit, line: `dss: ${error.code}: ${error.detail}` };
  if (error instanceof DssProblem) {
    const line = `dss: ${error.code}: ${error.detail}`;
    if (error.status === 401) return { exit: Exit.unauthenticated, line: `${line} (sign in again: dss login)` };
    if ([429, 502, 503, 504].includes(error.status)) return { exit: Exit.unavailable, line };
    return { exit: error.status >= 400 && error.status < 500 ? Exit.refused : Exit.failure, line };
  }
  const unreachable = unreachableCause(error);
  if (unreachable !== undefined)
    return { exit: Exit.unavailable, line: `dss: unreachable: the service could not be reached (${unreachable})` };
  return { exit: Exit.failure, line: `dss: ${error instanceof Error ? error.message : String(error)}` };
}

/** fetch fails with a TypeError whose cause is the socket's error (ECONNREFUSED, ENOTFOUND, a timeout). */
function unreachableCause(error: unknown): string | undefined {
  if (!(error instanceof TypeError) || error.message !== 'fetch failed') return undefined;
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (typeof cause?.message === 'string' && cause.message) return cause.message;
  return typeof cause?.code === 'string' ? cause.code : 'no answer';
}
