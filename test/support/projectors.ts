import type { SqlDb } from '../../src/db/sql.js';
import type { RecordedEvent, UnpositionedEvent } from '../../src/events/envelope.js';
import type { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { ProjectionEngine, type EngineOptions } from '../../src/projections/engine.js';
import { inlineProjection } from '../../src/projections/inline.js';
import { logProjector, writes, type Projector } from '../../src/projections/projector.js';

/** A read model of every event that refuses one, by its id: its build stops at that event, named. */
export function refusingProjector(refusedEventId: string): Projector {
  return logProjector({
    name: 'refusing',
    version: 1,
    schemaSql: `CREATE TABLE IF NOT EXISTS refused (event_id uuid PRIMARY KEY CHECK (event_id <> '${refusedEventId}'))`,
    onAny: writes<RecordedEvent, UnpositionedEvent>((e) => [['INSERT INTO refused (event_id) VALUES ($1)', [e.metadata.eventId]]]),
  });
}

/**
 * A read model that records every event it is handed, with no uniqueness, so a duplicate shows
 * up as a second row and a gap as a missing one. `seq` keeps the order of application.
 */
export function recordingProjector(name: string, hooks: { before?: (eventId: string) => Promise<void> } = {}): Projector {
  return logProjector({
    name,
    version: 1,
    schemaSql: `CREATE TABLE IF NOT EXISTS ${name} (
      seq bigint GENERATED ALWAYS AS IDENTITY, event_id uuid NOT NULL, stream_id text NOT NULL, revision bigint NOT NULL)`,
    onAny: async (tx, e) => {
      await hooks.before?.(e.metadata.eventId);
      await tx.query(`INSERT INTO ${name} (event_id, stream_id, revision) VALUES ($1, $2, $3)`, [
        e.metadata.eventId,
        e.streamId,
        e.revision,
      ]);
    },
  });
}

/**
 * A read model that writes one row per event, by its handler or by its set-based statement for a
 * batch (Projector.batchStatements): each row records how many events the statement that wrote it
 * carried. Its table refuses Poison events, whichever statement carries them, and, unless told
 * `unique: false` (so that a duplicate shows up as a second row), an event written twice.
 */
export function batchedRowsProjector(name: string, { unique = true } = {}): Projector {
  const columns = `${name} (event_id, type, statement_events)`;
  return logProjector({
    name,
    version: 1,
    schemaSql: `CREATE TABLE IF NOT EXISTS ${name} (
      event_id uuid ${unique ? 'PRIMARY KEY' : 'NOT NULL'}, type text NOT NULL CHECK (type <> 'Poison'), statement_events int NOT NULL)`,
    onAny: async (tx, e) => {
      await tx.query(`INSERT INTO ${columns} VALUES ($1, $2, 1)`, [e.metadata.eventId, e.type]);
    },
    batchStatements: (events) => [
      [
        `INSERT INTO ${columns} SELECT id, type, cardinality($1::uuid[]) FROM unnest($1::uuid[], $2::text[]) AS r(id, type)`,
        [events.map((e) => e.metadata.eventId), events.map((e) => e.type)],
      ],
    ],
  });
}

/** batchedRowsProjector's rows, by event id. */
export async function batchedRows(db: SqlDb, name: string): Promise<{ event_id: string; statement_events: number }[]> {
  const r = await db.query<{ event_id: string; statement_events: number }>(
    `SELECT event_id::text AS event_id, statement_events FROM rm.${name}`,
  );
  return r.rows.sort((a, b) => (a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : 0));
}

export type RecordedRow = { seq: number; event_id: string; stream_id: string; revision: number };

export async function recordedRows(db: SqlDb, name: string, schema = 'rm'): Promise<RecordedRow[]> {
  const r = await db.query<{ seq: string; event_id: string; stream_id: string; revision: string }>(
    `SELECT seq::text AS seq, event_id::text AS event_id, stream_id, revision::text AS revision FROM ${schema}.${name} t ORDER BY t.seq`,
  );
  return r.rows.map((x) => ({ seq: Number(x.seq), event_id: x.event_id, stream_id: x.stream_id, revision: Number(x.revision) }));
}

/** Every event exactly once, and each stream's events in revision order. */
export function assertExactlyOnceInStreamOrder(rows: readonly RecordedRow[], expectedEventIds: readonly string[]): string | null {
  const ids = rows.map((r) => r.event_id);
  if (new Set(ids).size !== ids.length) return `duplicates: ${ids.length - new Set(ids).size}`;
  const expected = new Set(expectedEventIds);
  const missing = expectedEventIds.filter((id) => !ids.includes(id));
  if (missing.length) return `missing ${missing.length} events`;
  if (ids.some((id) => !expected.has(id))) return 'unexpected events';
  const lastRevision = new Map<string, number>();
  for (const r of rows) {
    const prev = lastRevision.get(r.stream_id) ?? -1;
    if (r.revision !== prev + 1) return `revision ${r.revision} after ${prev} in stream ${r.stream_id}`;
    lastRevision.set(r.stream_id, r.revision);
  }
  return null;
}

/**
 * As src/main.ts composes it: the engine switches `projectors` inline (reading the log through
 * `log`), then appends go through a store opened to write their rows in its transactions.
 */
export async function startInline(
  db: SqlDb,
  log: SqlEventStore,
  projectors: readonly Projector[],
  options: Omit<EngineOptions, 'db' | 'store' | 'projectors' | 'inline'> = {},
): Promise<{ engine: ProjectionEngine; store: SqlEventStore }> {
  const engine = new ProjectionEngine({ ...options, db, store: log, projectors, inline: log });
  await engine.start();
  return { engine, store: log.withInline(inlineProjection(projectors, engine.schema, options.logger)) };
}
