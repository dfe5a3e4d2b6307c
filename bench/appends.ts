import { randomUUID } from 'node:crypto';
import type { SqlDb } from '../src/db/sql.js';
import { SqlEventStore } from '../src/events/sql/sql-event-store.js';
import { percentile, type Row } from './measure.js';
import { benchEvent } from './bench-event.js';

/** Our appends of one ~300-byte event to a fresh stream each, at each writer count, for `seconds`. */
export async function benchAppends(db: SqlDb, options: { seconds: number; writers: readonly number[] }): Promise<Row[]> {
  const store = await SqlEventStore.open(db);
  const rows: Row[] = [];
  for (const writers of options.writers) {
    const latencies: number[] = [];
    const end = performance.now() + options.seconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        while (performance.now() < end) {
          const t0 = performance.now();
          await store.appendToStream(`bench-${randomUUID()}`, [benchEvent(latencies.length)], 'no_stream');
          latencies.push(performance.now() - t0);
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    rows.push({
      section: 'peer',
      name: 'ours: append 1 event to a fresh stream',
      clients: writers,
      count: latencies.length,
      perSecond: latencies.length / elapsed,
      p50ms: percentile(latencies, 50),
      p99ms: percentile(latencies, 99),
    });
  }
  return rows;
}
