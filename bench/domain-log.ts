import type pg from 'pg';
import type { JsonObject, NewEvent } from '../src/events/envelope.js';
import type { SqlEventStore } from '../src/events/sql/sql-event-store.js';

/** An event of a recorded log, as the replicas copy it. */
export type LoggedEvent = {
  readonly streamId: string;
  readonly revision: number;
  readonly type: string;
  readonly data: JsonObject;
  readonly metadata: JsonObject;
};

/** The whole log of `db`, in log order. */
export async function readLog(db: pg.Client): Promise<LoggedEvent[]> {
  const rows = await db.query<LoggedEvent>(
    `SELECT stream_id AS "streamId", revision::int AS revision, type, data, metadata FROM es.events ORDER BY transaction_id, position`,
  );
  return rows.rows;
}

const UUID = /[0-9a-f]{8}(?=-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/g;
const SHA256_HEX = /(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])/g;
/** An address's @ (sealed data is base64, which has none): scanning for the local part first was quadratic on it. */
const EMAIL_AT = /@(?=[A-Za-z0-9-]+\.)/g;

/**
 * Replica `k` (1, 2, ...) of a recorded event: every id renamed the same way in every event of the
 * replica, so its records, people and organization are its own and relate as the recording's did.
 * A uuid's and a hash's first 32 bits are xor-ed with k (one-to-one), an address gains "+r<k>".
 */
export function replicaOf(event: LoggedEvent, k: number): LoggedEvent {
  return JSON.parse(renamed(JSON.stringify(event), k)) as LoggedEvent;
}

function renamed(text: string, k: number): string {
  const xor = (hex: string) => ((Number.parseInt(hex.slice(0, 8), 16) ^ k) >>> 0).toString(16).padStart(8, '0') + hex.slice(8);
  return text.replace(UUID, xor).replace(SHA256_HEX, xor).replace(EMAIL_AT, `+r${k}@`);
}

/**
 * Appends replicas of `recorded` until the log holds at least `n` more events, each replica in the
 * recording's order (a stream's run of events as one append), `writers` replicas at a time. A
 * stream whose id names no record (the log's own checkpoints) is not copied: it is one per log.
 */
export async function appendReplicas(store: SqlEventStore, recorded: readonly LoggedEvent[], n: number, writers = 32): Promise<number> {
  const copied = recorded.filter((e) => renamed(e.streamId, 1) !== e.streamId);
  if (copied.length === 0) throw new Error('the recorded log has no event to replicate');
  const runs = streamRuns(copied);
  const replicas = Math.ceil(n / copied.length);
  let next = 1;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      for (let k = next++; k <= replicas; k = next++) {
        for (const run of runs) {
          const events = run.map((e) => replicaOf(e, k));
          const first = events[0]!;
          await store.appendToStream(first.streamId, events.map(asNew), first.revision === 0 ? 'no_stream' : first.revision - 1);
        }
      }
    }),
  );
  return replicas * copied.length;
}

/** Consecutive events of one stream, together. */
function streamRuns(events: readonly LoggedEvent[]): LoggedEvent[][] {
  const runs: LoggedEvent[][] = [];
  for (const e of events) {
    const last = runs[runs.length - 1];
    if (last && last[0]!.streamId === e.streamId) last.push(e);
    else runs.push([e]);
  }
  return runs;
}

/** The event as an append takes it: the store computes the hash chain again. */
function asNew(e: LoggedEvent): NewEvent {
  const { hash: _hash, prevHash: _prevHash, ...metadata } = e.metadata;
  return { type: e.type, data: e.data, metadata: metadata as NewEvent['metadata'] };
}
