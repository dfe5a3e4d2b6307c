import { randomUUID } from 'node:crypto';
import type { SqlDb } from '../src/db/sql.js';
import type { NewEvent } from '../src/events/envelope.js';
import { SqlEventStore } from '../src/events/sql/sql-event-store.js';
import { ProjectionEngine } from '../src/projections/engine.js';
import { allProjectors } from '../src/projections/index.js';
import { replay } from '../src/projections/replay.js';
import { type Row, timed, percentile } from './measure.js';

function event(i: number): NewEvent {
  return {
    type: 'BenchHappened',
    data: { i, note: 'x'.repeat(200) },
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

/** Append, read, project and replay figures for one backend. */
export async function benchEventStore(backend: string, db: SqlDb, n: number): Promise<Row[]> {
  const store = await SqlEventStore.open(db);
  const rows: Row[] = [];
  const writers = 8;
  const streams = Array.from({ length: 64 }, () => `bench-${randomUUID()}`);

  const latencies: number[] = [];
  const append = await timed(async () => {
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = w; i < n; i += writers) {
          const t0 = performance.now();
          await store.appendToStream(streams[i % streams.length]!, [event(i)], 'any');
          latencies.push(performance.now() - t0);
        }
      }),
    );
  });
  rows.push({
    backend,
    operation: `append 1 event, ${writers} writers`,
    count: n,
    perSecond: n / append,
    p50ms: percentile(latencies, 50),
    p99ms: percentile(latencies, 99),
  });

  let read = 0;
  const readAll = await timed(async () => {
    let after;
    for (;;) {
      const page = await store.readAll({ after, maxCount: 1000 });
      if (page.length === 0) break;
      read += page.length;
      after = page[page.length - 1]!.position;
    }
  });
  rows.push({ backend, operation: 'read all, pages of 1000', count: read, perSecond: read / readAll });

  const engine = new ProjectionEngine({ db, store, projectors: allProjectors, idlePollMs: 20 });
  const catchUp = await timed(async () => {
    await engine.start();
    const last = await lastPosition(db);
    await engine.waitFor(last, { timeoutMs: 600_000 });
  });
  rows.push({ backend, operation: `project ${allProjectors.length} read model(s) from scratch`, count: n, perSecond: n / catchUp });

  const ryw: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    const r = await store.appendToStream(streams[i % streams.length]!, [event(i)], 'any');
    await engine.waitFor(r.position, { eventTypes: ['BenchHappened'] });
    ryw.push(performance.now() - t0);
  }
  rows.push({
    backend,
    operation: 'append + wait until projected',
    count: 200,
    perSecond: 200 / (ryw.reduce((a, b) => a + b, 0) / 1000),
    p50ms: percentile(ryw, 50),
    p99ms: percentile(ryw, 99),
  });
  await engine.stop();

  const replayed = await replay({ db, store, projectors: allProjectors });
  rows.push({ backend, operation: 'replay every read model + swap', count: replayed.events, perSecond: replayed.eventsPerSecond });
  return rows;
}

async function lastPosition(db: SqlDb) {
  const r = await db.query<{ commit: string; prepare: string }>(
    'SELECT transaction_id::text AS commit, position::text AS prepare FROM es.events ORDER BY transaction_id DESC, position DESC LIMIT 1',
  );
  const row = r.rows[0]!;
  return { commit: BigInt(row.commit), prepare: BigInt(row.prepare) };
}
