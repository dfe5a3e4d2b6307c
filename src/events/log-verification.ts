import type { RecordedEvent } from './envelope.js';
import { linkBreak, type ChainHead } from './hash-chain.js';
import { logEvents, logStreams } from './log-events.js';
import { LogHeads, type LogSummary } from './log-heads.js';
import { comparePositions, formatPosition, positionFrom, type Position } from './position.js';

export type LogBreakReason =
  /** The event's hash does not recompute: its content (or its stored revision) changed. */
  | 'edited'
  /** The event does not link to the previous one of its stream: the one before it was rewritten. */
  | 'link_broken'
  /** Revisions before this event's are not in the log (deleted, or moved later in the log). */
  | 'missing'
  /** A revision comes again or back, or the event follows the previous one under another number. */
  | 'out_of_order'
  /** A checkpoint saw other stream heads: a stream, or a stream's tail, was removed or added. */
  | 'heads_differ'
  /** Same heads, another number of events up to a checkpoint: whole streams' events replaced by fewer or more. */
  | 'count_differs'
  /** A checkpoint names a position that is not behind it in the log. */
  | 'checkpoint_misplaced';

/** The first place the log stops being what was written. */
export type LogBreak = {
  readonly position: Position;
  readonly streamId: string;
  /** The event's revision; for `missing`, the first revision that is missing. */
  readonly revision: number;
  readonly reason: LogBreakReason;
  readonly detail: string;
};

/**
 * Checks a log fed in global order, event by event (pure: no store, no clock). Each stream's links
 * (hash-chain.ts), and at each LogCheckpointed the count and heads as of its upTo. The positions
 * checkpoints summarize are given up front (read from the checkpoint stream), so the heads are
 * taken as the walk passes each one, whether or not the event there survived.
 */
export class LogVerifier {
  private readonly heads = new LogHeads();
  private readonly pending: Position[];
  private readonly taken = new Map<string, LogSummary>();
  private broken: LogBreak | null = null;
  private checked = 0;

  constructor(checkpoints: readonly RecordedEvent[]) {
    // Read raw, not decoded: a forged checkpoint is reported where the walk reaches it, not thrown here.
    this.pending = checkpoints
      .map((e) => (e.type === 'LogCheckpointed' && typeof e.data.upTo === 'string' ? positionFrom(e.data.upTo) : null))
      .filter((p): p is Position => p !== null)
      .sort(comparePositions);
  }

  /** The first break so far, or null; events after a break are not looked at. */
  get firstBreak(): LogBreak | null {
    return this.broken;
  }

  get events(): number {
    return this.heads.events;
  }

  /** LogCheckpointed events checked and found to agree. */
  get checkpoints(): number {
    return this.checked;
  }

  feed(e: RecordedEvent): LogBreak | null {
    if (this.broken) return this.broken;
    while (this.pending.length && comparePositions(this.pending[0]!, e.position) < 0) this.takeSummary(this.pending.shift()!);
    this.broken = this.linkBroken(e) ?? this.checkpointBroken(e);
    if (!this.broken) this.heads.apply(e);
    return this.broken;
  }

  private takeSummary(at: Position): void {
    this.taken.set(formatPosition(at), this.heads.summary());
  }

  private linkBroken(e: RecordedEvent): LogBreak | null {
    const head = this.heads.head(e.streamId);
    const found = linkBreak(head, e);
    if (!found) return null;
    const at = { position: e.position, streamId: e.streamId };
    if (found.reason === 'hash_mismatch') return { ...at, revision: e.revision, reason: 'edited', detail: 'its hash does not recompute' };
    if (found.reason === 'link_mismatch') {
      return { ...at, revision: e.revision, reason: 'link_broken', detail: 'its prevHash is not the hash of the event before it' };
    }
    return gap(e, head);
  }

  private checkpointBroken(e: RecordedEvent): LogBreak | null {
    if (e.streamId !== logStreams.checkpoints.id || e.type !== 'LogCheckpointed') return null;
    const { data } = logEvents.decode(e);
    const at = { position: e.position, streamId: e.streamId, revision: e.revision };
    const seen = this.taken.get(data.upTo);
    if (!seen) return { ...at, reason: 'checkpoint_misplaced', detail: `its upTo ${data.upTo} is not behind it in the log` };
    if (seen.headsHash !== data.headsHash) {
      return {
        ...at,
        reason: 'heads_differ',
        detail:
          `the stream heads as of ${data.upTo} differ from those it recorded ` +
          `(${data.streams} streams then, ${seen.streams} now; ${data.events} events then, ${seen.events} now)`,
      };
    }
    if (seen.events !== data.events) {
      return { ...at, reason: 'count_differs', detail: `it counted ${data.events} events up to ${data.upTo}; the log has ${seen.events}` };
    }
    this.checked++;
    return null;
  }
}

/** An unexpected revision: numbered again or back, renumbered in place, or after missing ones. */
function gap(e: RecordedEvent, head: ChainHead | null): LogBreak {
  const expected = head ? head.revision + 1 : 0;
  const at = { position: e.position, streamId: e.streamId };
  if (e.revision < expected) {
    return { ...at, revision: e.revision, reason: 'out_of_order', detail: `revision ${e.revision} comes after revision ${expected - 1}` };
  }
  if (e.metadata.prevHash === (head?.hash ?? null)) {
    return {
      ...at,
      revision: e.revision,
      reason: 'out_of_order',
      detail: `it follows revision ${expected - 1} but is numbered ${e.revision}`,
    };
  }
  const missing = expected === e.revision - 1 ? `revision ${expected} is` : `revisions ${expected} to ${e.revision - 1} are`;
  return { ...at, revision: expected, reason: 'missing', detail: `${missing} not in the log before revision ${e.revision}` };
}
