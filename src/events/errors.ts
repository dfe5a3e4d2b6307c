import type { ExpectedRevision } from './envelope.js';

/** The one refusal every adapter raises when the stream is not where the writer expected it. */
export class WrongExpectedVersionError extends Error {
  override readonly name = 'WrongExpectedVersionError';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** The stream's actual revision, or 'no_stream'. */
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

export function isWrongExpectedVersion(e: unknown): e is WrongExpectedVersionError {
  return e instanceof WrongExpectedVersionError;
}
