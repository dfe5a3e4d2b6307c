import { comparePositions, type Position } from './position.js';

/**
 * How long a reader waits before looking again for an event this process has committed but a read
 * did not show yet: it sits behind an older transaction still open, which ends in milliseconds.
 */
export const HELD_BACK_RETRY_MS = 2;

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
