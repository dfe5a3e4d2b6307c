import { randomUUID } from 'node:crypto';
import type { NewEvent } from '../src/events/envelope.js';

/** The bench's event: ~300 bytes of data, the same for our store, the peer's, and the projection rows. */
export const BENCH_EVENT_TYPE = 'BenchHappened';
export const BENCH_NOTE = 'x'.repeat(200);

/** One of ours: every read model sees it (stream_heads writes a row for each; the others skip it). */
export function benchEvent(i: number): NewEvent {
  return {
    type: BENCH_EVENT_TYPE,
    data: { i, note: BENCH_NOTE },
    metadata: {
      eventId: randomUUID(),
      occurredAt: new Date().toISOString(),
      actor: { kind: 'system', id: 'bench' },
      correlationId: randomUUID(),
      causationId: null,
      schemaVersion: 1,
    },
  };
}
