import { deterministicUuid } from '../events/deterministic-id.js';
import type { SqlDb, SqlExecutor } from '../db/sql.js';
import type { NewEvent, RecordedEvent } from '../events/envelope.js';
import { readDecoded } from '../events/decoder.js';
import { operationsEvents, operationsStreams, type ProjectorEventSkipped } from '../events/operations-events.js';
import { comparePositions, formatPosition, type Position } from '../events/position.js';
import { SqlEventStore } from '../events/sql/sql-event-store.js';
import type { EventStore } from '../events/store.js';
import { checkpointSql, quoteIdent, readCheckpoints } from './checkpoints.js';

export const MAX_SKIP_REASON = 500;
export const MAX_SKIP_BY = 100;

export type SkipRequest = {
  readonly db: SqlDb;
  readonly store: EventStore;
  readonly projector: string;
  readonly position: Position;
  readonly reason: string;
  readonly by: string;
  readonly schema?: string;
  readonly now?: () => Date;
};

export type SkipOutcome = { readonly skippedEventId: string; readonly skippedEventType: string; readonly recordedAt: Position };

/** The operator asked for something that would not be a skip of exactly the event a projector is stalled on. */
export class SkipRefusedError extends Error {
  override readonly name = 'SkipRefusedError';
}

/**
 * Moves a stalled projector past exactly the event it is stalled on, and records who, when, why
 * and which event in the log (ProjectorEventSkipped on operations-projections). The checkpoint
 * row stays locked from the check to the move, so the projector cannot get past on its own in
 * between; on the SQL stores the record commits in the same transaction as the move.
 */
export async function skipStalledEvent(request: SkipRequest): Promise<SkipOutcome> {
  const { db, store, projector } = request;
  const schema = request.schema ?? 'rm';
  const reason = request.reason.trim();
  const by = request.by.trim();
  if (!reason || reason.length > MAX_SKIP_REASON) throw new SkipRefusedError(`a reason of 1 to ${MAX_SKIP_REASON} characters is required`);
  if (!by || by.length > MAX_SKIP_BY) throw new SkipRefusedError(`who skips must be named in 1 to ${MAX_SKIP_BY} characters`);

  return db.transaction(async (tx) => {
    // Before any write of this transaction: its record must follow the stream's earlier ones.
    if (store instanceof SqlEventStore) await store.serializeUsing(tx, operationsStreams.projections.id);
    await tx.query(`SELECT 1 FROM ${quoteIdent(schema)}.projection_checkpoints WHERE projector = $1 FOR UPDATE`, [projector]);
    const row = (await readCheckpoints(tx, schema)).find((r) => r.projector === projector);
    if (!row) throw new SkipRefusedError(`there is no projector ${projector}`);
    const wanted = formatPosition(request.position);
    if (!row.stalled) throw new SkipRefusedError(`${projector} is not stalled; nothing to skip`);
    if (comparePositions(row.stalled.position, request.position) !== 0) {
      throw new SkipRefusedError(`${projector} is stalled at ${formatPosition(row.stalled.position)}, not at ${wanted}`);
    }
    const [skipped] = await readAllIn(tx, store, row.position);
    if (!skipped || comparePositions(skipped.position, request.position) !== 0) {
      throw new SkipRefusedError(`${projector}'s next event is not at ${wanted}`);
    }
    const record = skipEvent(request, skipped, row.stalled.errorClass, reason, by);
    const appended =
      store instanceof SqlEventStore
        ? await store.appendUsing(tx, operationsStreams.projections.id, [record], 'any')
        : await store.appendToStream(operationsStreams.projections.id, [record], 'any');
    await tx.query(checkpointSql.compareAndAdvance(schema), [
      projector,
      row.position.commit.toString(),
      row.position.prepare.toString(),
      skipped.position.commit.toString(),
      skipped.position.prepare.toString(),
      1,
    ]);
    return { skippedEventId: skipped.metadata.eventId, skippedEventType: skipped.type, recordedAt: appended.position };
  });
}

/** Event ids each projector passes over, as operators recorded them; replay honours them. */
export async function recordedSkips(store: Pick<EventStore, 'readStream'>): Promise<Map<string, Set<string>>> {
  const skips = new Map<string, Set<string>>();
  for (const e of await readDecoded(store, operationsStreams.projections)) {
    const { projector, skippedEventId } = e.data;
    const ids = skips.get(projector) ?? new Set<string>();
    ids.add(skippedEventId);
    skips.set(projector, ids);
  }
  return skips;
}

function readAllIn(tx: SqlExecutor, store: EventStore, after: Position): Promise<RecordedEvent[]> {
  return store instanceof SqlEventStore ? store.readAllUsing(tx, { after, maxCount: 1 }) : store.readAll({ after, maxCount: 1 });
}

function skipEvent(request: SkipRequest, skipped: RecordedEvent, errorClass: string, reason: string, by: string): NewEvent {
  const data: ProjectorEventSkipped['data'] = {
    projector: request.projector,
    position: formatPosition(skipped.position),
    skippedEventId: skipped.metadata.eventId,
    skippedEventType: skipped.type,
    reason,
    by,
    errorClass,
  };
  const eventId = deterministicUuid('projector-event-skipped', `${request.projector}/${skipped.metadata.eventId}`);
  return {
    type: 'ProjectorEventSkipped',
    data,
    metadata: {
      occurredAt: (request.now?.() ?? new Date()).toISOString(),
      actor: { kind: 'system', id: `operator:${by}` },
      correlationId: eventId,
      causationId: skipped.metadata.eventId,
      eventId,
      schemaVersion: operationsEvents.versionOf('ProjectorEventSkipped'),
    },
  };
}
