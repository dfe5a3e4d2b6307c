import { comparePositions, type Position } from './position.js';

/**
 * How long a reader waits before looking again for an event this process has committed but a read
 * did not show yet: it sits behind an older transaction still open, which ends in milliseconds.
 * The wait doubles while the event stays held back, up to HELD_BACK_MAX_MS: an append that ends
 * the older transaction wakes the reader anyway, and only one that wrote no event (a limit, a
 * checkpoint) ends unannounced, where a fixed 2 ms would make every loop read the log 500 times a
 * second (docs/decisions.md, "Read models").
 */
const HELD_BACK_RETRY_MS = 2;
const HELD_BACK_MAX_MS = 16;

/** The waits of one reader's looks at held-back events: 2, 4, 8, 16, 16 ms… until reset by a read that found events. */
export class HeldBackRetry {
  private misses = 0;

  next(): number {
    const ms = Math.min(HELD_BACK_MAX_MS, HELD_BACK_RETRY_MS * 2 ** this.misses);
    this.misses = Math.min(this.misses + 1, 4);
    return ms;
  }

  reset(): void {
    this.misses = 0;
  }
}

/**
 * The newest position this process's appends announced. A reader whose read came back empty
 * although an event after its checkpoint has committed looks again at once instead of idling.
 */
export class LatestAppended {
  private latest: Position | null = null;

  note(position?: Position): void {
    if (position && (!this.latest || comparePositions(position, this.latest) > 0)) this.latest = position;
  }

  /** True when an event after `at` has committed in this process. */
  isAfter(at: Position): boolean {
    return this.latest !== null && comparePositions(this.latest, at) > 0;
  }
}
