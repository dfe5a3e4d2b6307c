import { isRefusal, type Refusal } from '../../commands/refusal.js';
import { graphqlError } from './errors.js';

/**
 * R-ERAS-09 (contract §10.10): whether the caller of one GraphQL request still stands. The token
 * was checked once, before the request ran; an erasure within the request ends it there, so every
 * field after it answers UNAUTHENTICATED and writes nothing.
 */
export class CallerStanding {
  #erased = false;
  /** The erasure running in this request; it settles once #erased is decided and it is no longer running. */
  #erasing: Promise<void> | null = null;

  /** Runs a field, or refuses it once the caller was erased; a field that starts during an erasure waits for its outcome. */
  field<T>(resolve: () => T): T | Promise<T> {
    if (this.#erased) throw graphqlError('UNAUTHENTICATED', 'the account was erased earlier in this request: its token no longer works');
    if (this.#erasing) return this.#erasing.then(() => this.field(resolve));
    return resolve();
  }

  /** Runs the erasure; once it has succeeded, no field after it runs. A second one waits in field() for the first. */
  erase<T>(run: () => Promise<T | Refusal>): Promise<T | Refusal> {
    const outcome = run().then((result) => {
      if (!isRefusal(result)) this.#erased = true;
      return result;
    });
    const settled = () => {
      this.#erasing = null;
    };
    this.#erasing = outcome.then(settled, settled);
    return outcome;
  }
}
