import type { SqlDb } from './sql.js';

/** How late other instances may hear of a change, so that changes close together share one NOTIFY. */
const COALESCE_MS = 5;

/**
 * A NOTIFY sent after the change it announces committed, never inside its transaction: a commit
 * that notifies takes a server-wide lock, so such commits cannot share a WAL flush. Changes within
 * a few milliseconds, or while one is in flight, share one notification, and none is sent while no
 * other connection listens on the channel (this process hears its own changes directly). Listeners
 * also poll, so a lost notification costs latency, not correctness.
 */
export class CoalescedNotify {
  private inFlight = false;
  private again = false;

  constructor(
    private readonly db: SqlDb,
    private readonly channel: string,
    /** Sent with every notification: a listener of the same process can tell its own from others'. */
    private readonly payload = '',
  ) {}

  send(): void {
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.inFlight = true;
    this.later();
  }

  private later(): void {
    setTimeout(() => this.flush(), COALESCE_MS).unref();
  }

  private flush(): void {
    this.again = false;
    // A lone instance's NOTIFY woke its own listener and cost a keep about a tenth of its CPU (docs/performance.md).
    this.db
      .listenedElsewhere(this.channel)
      .then((heard) => (heard ? this.db.query('SELECT pg_notify($1, $2)', [this.channel, this.payload]) : null))
      .then(
        () => (this.again ? this.later() : (this.inFlight = false)),
        () => (this.inFlight = false),
      );
  }
}
