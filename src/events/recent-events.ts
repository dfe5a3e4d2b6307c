import type { RecordedEvent } from './envelope.js';
import { comparePositions, formatPosition, type Position } from './position.js';
import type { EventStore } from './store.js';

/** The most events held; after a trim, three quarters of it. */
const CAPACITY = 10_000;

/**
 * The newest stretch of the log this instance read, without a gap: projectors a little behind the
 * leader take their next page from here instead of reading and parsing it from the database again.
 */
export class RecentEvents {
  /** Events right after `from`, in log order. */
  private from: Position | null = null;
  private events: RecordedEvent[] = [];

  /** Up to `maxCount` events right after `after`, or null when this stretch does not hold them. */
  after(after: Position, maxCount: number): RecordedEvent[] | null {
    const start = this.indexAfter(after);
    if (start === null || start >= this.events.length) return null;
    return this.events.slice(start, start + maxCount);
  }

  /** Records a page read from the database after `after`: it extends the stretch or starts a new one. */
  add(after: Position, page: readonly RecordedEvent[]): void {
    if (page.length === 0) return;
    if (this.indexAfter(after) !== this.events.length) {
      this.from = after;
      this.events = [];
    }
    this.events.push(...page);
    // Past CAPACITY the oldest quarter goes at once: moving the array on every page took 4% of a keep's thread (docs/performance.md).
    if (this.events.length > CAPACITY) {
      const dropped = this.events.length - CAPACITY + CAPACITY / 4;
      this.from = this.events[dropped - 1]!.position;
      this.events = this.events.slice(dropped);
    }
  }

  /** Index of the event right after `after` within the stretch, or null when `after` is not in it. */
  private indexAfter(after: Position): number | null {
    if (!this.from) return null;
    if (comparePositions(after, this.from) === 0) return 0;
    let lo = 0;
    let hi = this.events.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = comparePositions(this.events[mid]!.position, after);
      if (c === 0) return mid + 1;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return null;
  }
}

/**
 * Pages read from the database at least this long: loops asking for shorter pages (a reactor's 100)
 * share the read of a longer one (a projector's 500), and the rest waits in RecentEvents.
 */
const SHARED_PAGE = 500;

/**
 * A read of the log's end begins at least this long after the read before it. Under load every
 * append wakes the loops, and each wake-up was a read of a few events (about one a keep at 16
 * clients): spaced, the appends of a few milliseconds come in one page, and the loops write them in
 * one batch. Idle, a read goes at once, and so does one behind a full page (a loop catching up);
 * a follower of a busy log sees an event at most this much later.
 */
export const READ_GAP_MS = 5;

/**
 * Reads of the log shared by the loops of one instance (projectors, reactors, the log
 * checkpointer; main.ts gives them one): loops woken by one append share one read instead of each
 * asking the database for the same page; one a little behind takes its page from what the others
 * read (RecentEvents), and the database is asked only for what follows that.
 */
export class SharedLogReads {
  private readonly inFlight = new Map<string, { readonly count: number; readonly page: Promise<RecordedEvent[]> }>();
  private readonly recent = new RecentEvents();
  /** Appends this instance has heard of: its own, and other instances' by their NOTIFY. */
  private heard = 0;
  /** `heard` when the read that found the log's end, where the stretch in memory ends, began; null when it ends short of it. */
  private endAsOf: number | null = null;
  /** When the last read of the database began (performance.now()). */
  private lastRead = -Infinity;
  /** Resolves when the last read asked for has begun: the next waits its turn behind it. */
  private turn: Promise<void> = Promise.resolve();
  /** Whether the last read of the database reached the log's end (a short page). */
  private tailing = false;

  constructor(private readonly store: Pick<EventStore, 'readAll' | 'onAppended'>) {
    // For as long as the store lives: the instance's one reader, or a loop's own.
    store.onAppended(() => {
      this.heard++;
    });
  }

  read(after: Position, maxCount: number): Promise<RecordedEvent[]> {
    const recent = this.recent.after(after, maxCount) ?? [];
    // A short page from memory ends where the log ended when it was read, which a loop takes for
    // the log's end: true only while no append has been heard of since that read began.
    if (recent.length > 0 && (recent.length === maxCount || this.endAsOf === this.heard)) return Promise.resolve(recent);
    // What memory holds is not read again: the database is asked for what follows it, so loops at
    // different places in memory share one read of the log's end.
    const from = recent.at(-1)?.position ?? after;
    const wanted = maxCount - recent.length;
    const read = this.inFlight.get(formatPosition(from)) ?? this.readFrom(from, Math.max(wanted, SHARED_PAGE));
    // A read in flight for fewer events that came back full would cut this page short, which a loop
    // takes for the log's end: it reads on from what that one brought into memory.
    return read.page.then((events) =>
      read.count < wanted && events.length === read.count ? this.read(after, maxCount) : [...recent, ...events.slice(0, wanted)],
    );
  }

  /** A read of the database after `from`, shared with every loop asking for what follows it until it answers. */
  private readFrom(from: Position, count: number): { readonly count: number; readonly page: Promise<RecordedEvent[]> } {
    const key = formatPosition(from);
    const page = this.spaced().then(async () => {
      const began = this.heard;
      const events = await this.store.readAll({ after: from, maxCount: count });
      this.tailing = events.length < count;
      this.recent.add(from, events);
      // The page now ends the stretch: a short one at the log's end as of `began`, a full one short of it.
      if (events.length > 0) this.endAsOf = events.length < count ? began : null;
      return events;
    });
    const read = { count, page };
    this.inFlight.set(key, read);
    const forget = () => {
      if (this.inFlight.get(key) === read) this.inFlight.delete(key);
    };
    page.then(forget, forget);
    return read;
  }

  /**
   * Resolves when the next read of the database may begin: READ_GAP_MS after the one before it
   * began, when the last read to finish reached the log's end. Reads take turns, so the gap holds
   * between the reads' real starts, not between when each was asked for.
   */
  private spaced(): Promise<void> {
    const turn = this.turn.then(async () => {
      if (this.tailing) await until(this.lastRead + READ_GAP_MS);
      this.lastRead = performance.now();
    });
    this.turn = turn;
    return turn;
  }
}

/** Resolves once performance.now() reaches `at`: a timer may fire early by the event loop's cached clock. */
async function until(at: number): Promise<void> {
  for (let left = at - performance.now(); left > 0; left = at - performance.now())
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
}
