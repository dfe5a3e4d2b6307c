/**
 * The statements a transaction sent, in the order sent. One its caller did not wait for still
 * belongs to the transaction: the commit waits for its answer, and its failure fails it.
 */
export class SentStatements {
  private readonly outcomes: Promise<Error | null>[] = [];

  /** The answer, as the caller gets it; a caller that never awaits it leaves no unhandled rejection. */
  track<T>(answer: Promise<T>): Promise<T> {
    this.outcomes.push(
      answer.then(
        () => null,
        (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
      ),
    );
    return answer;
  }

  /**
   * Once every statement is answered, what left the transaction failed, if it is: the first of the
   * failures after the last statement that succeeded. In a failed transaction only a rollback (to a
   * savepoint) succeeds, so a failure followed by a success was recovered from; the failures after
   * the cause only found the transaction aborted.
   */
  async cause(): Promise<Error | null> {
    let cause: Error | null = null;
    for (const outcome of await Promise.all(this.outcomes)) cause = outcome && (cause ?? outcome);
    return cause;
  }
}
