import type { SqlDb } from '../db/sql.js';
import type { RecordedEvent } from '../events/envelope.js';
import { comparePositions, formatPosition, type Position } from '../events/position.js';
import type { EventStore } from '../events/store.js';

/**
 * Where a time travel stops reading the log. The log is ordered by position, not by the time
 * events say they occurred (clocks of several instances differ a little), so a cut at a time is
 * the longest prefix of the log in which no event occurred after it: reading stops at the first
 * event, in log order, whose metadata.occurredAt is later than `at`.
 */
export type LogCut = { readonly kind: 'position'; readonly position: Position } | { readonly kind: 'time'; readonly at: Date };

/** The leading events of a batch that fall within the cut. */
export function withinCut(cut: LogCut, batch: readonly RecordedEvent[]): readonly RecordedEvent[] {
  const late = batch.findIndex((e) =>
    cut.kind === 'position' ? comparePositions(e.position, cut.position) > 0 : Date.parse(e.metadata.occurredAt) > cut.at.getTime(),
  );
  return late === -1 ? batch : batch.slice(0, late);
}

export function describeCut(cut: LogCut): string {
  return cut.kind === 'position' ? `position ${formatPosition(cut.position)}` : `time ${cut.at.toISOString()}`;
}

const count = {
  upToPosition: `SELECT count(*)::text AS n FROM es.events WHERE (transaction_id, position) <= ($1::text::xid8, $2::bigint)`,
  upToTime: `
    WITH first_late AS (
      SELECT transaction_id, position FROM es.events
      WHERE (metadata->>'occurredAt')::timestamptz > $1::timestamptz
      ORDER BY transaction_id, position LIMIT 1)
    SELECT count(*)::text AS n FROM es.events e
    WHERE NOT EXISTS (SELECT 1 FROM first_late f WHERE (e.transaction_id, e.position) >= (f.transaction_id, f.position))`,
};

/** For the progress bar: how many events the cut holds; only the SQL stores can count cheaply. */
export async function countWithinCut(db: SqlDb, store: EventStore, cut: LogCut): Promise<number | null> {
  if (store.kind === 'eventstoredb') return null;
  const r =
    cut.kind === 'position'
      ? await db.query<{ n: string }>(count.upToPosition, [cut.position.commit.toString(), cut.position.prepare.toString()])
      : await db.query<{ n: string }>(count.upToTime, [cut.at.toISOString()]);
  return Number(r.rows[0]?.n ?? 0);
}
