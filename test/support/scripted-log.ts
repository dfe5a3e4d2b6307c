import { createLogger } from '../../src/logger.js';
import type { SqlDb } from '../../src/db/sql.js';
import type { EventStore } from '../../src/events/store.js';
import { LogCheckpointer } from '../../src/workers/log-checkpointer.js';
import { newEvent } from './events.js';

export const SCRIPTED_STREAMS = ['case-a', 'case-b', 'case-c', 'case-d'] as const;
/** Small, so checkpoints fall between the script's events. */
export const SCRIPTED_CHECKPOINT_EVERY = 4;

/**
 * A log as the service writes it, through the real store and checkpointer: four rounds, each one
 * event on every stream and then a batch of three on one of them, the checkpointer catching up
 * after each round (so checkpoints interleave with the streams).
 */
export async function writeScriptedLog(db: SqlDb, store: EventStore): Promise<void> {
  const checkpointer = new LogCheckpointer({ db, store, every: SCRIPTED_CHECKPOINT_EVERY, logger: createLogger('silent') });
  for (let round = 0; round < 4; round++) {
    for (const s of SCRIPTED_STREAMS) await store.appendToStream(s, [newEvent('Noted', { round, note: `${s} in round ${round}` })], 'any');
    const batch = [0, 1, 2].map((i) => newEvent('Noted', { round, batch: i, note: 'one of a batch' }));
    await store.appendToStream(SCRIPTED_STREAMS[round]!, batch, 'any');
    await checkpointer.catchUp();
  }
}

/** What someone with write access to the database can do: change es.events past its append-only trigger. */
export function asAttacker(db: SqlDb, ...statements: readonly (readonly [string, readonly unknown[]])[]): Promise<void> {
  return db.transaction(async (tx) => {
    await tx.query('SET LOCAL session_replication_role = replica');
    for (const [sql, params] of statements) await tx.query(sql, params);
  });
}
