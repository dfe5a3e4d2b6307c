import type { SqlExecutor } from '../db/sql.js';
import type { RecordedEvent } from '../events/envelope.js';

export type ProjectionHandler = (tx: SqlExecutor, event: RecordedEvent) => Promise<unknown>;

/**
 * A read model: its tables (DDL run inside the read-model schema, so names stay unqualified)
 * and one handler per event type it cares about. Handlers must be deterministic, using only the
 * event (never the clock), so a replay rebuilds the same rows.
 */
export type Projector = {
  readonly name: string;
  /** Bump when the tables or handlers change meaning; the service then rebuilds from the log. */
  readonly version: number;
  readonly schemaSql: string;
  readonly on: Readonly<Record<string, ProjectionHandler>>;
  /** For read models about the log itself: runs for every event type without its own handler. */
  readonly onAny?: ProjectionHandler;
};

export function projector(definition: Projector): Projector {
  if (!/^[a-z][a-z0-9_]*$/.test(definition.name)) throw new Error(`projector name ${definition.name} must be snake_case`);
  return Object.freeze(definition);
}
