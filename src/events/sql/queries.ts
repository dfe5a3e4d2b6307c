/** The event store's SQL, shared by the PostgreSQL and PGlite adapters. */
/**
 * Taken before anything else an append does. An advisory lock assigns no transaction id, so the id
 * the append's first write takes comes after the previous appender's: the global order
 * (transaction_id, position) then keeps every stream's revisions in order. Locking the stream row
 * first would take the id before waiting, and a writer that took its id just before another
 * locked the row would be ordered before events it follows.
 */
export const serializeStream = `SELECT pg_advisory_xact_lock(hashtextextended('es.stream:' || $1, 0))`;

export const lockStream = `SELECT revision::text AS revision, last_hash FROM es.streams WHERE stream_id = $1 FOR UPDATE`;

export const createStream = `INSERT INTO es.streams (stream_id, revision, last_hash) VALUES ($1, $2, $3)`;

/** The WHERE repeats the expectation so the database itself refuses a stale writer. */
export const advanceStream = `UPDATE es.streams SET revision = $3, last_hash = $4 WHERE stream_id = $1 AND revision = $2`;

export const insertEvents = `
  INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata)
  SELECT $1, r, e, t, d, m
  FROM unnest($2::bigint[], $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[]) AS x(r, e, t, d, m)
  RETURNING transaction_id::text AS commit, position::text AS prepare, revision::text AS revision`;

export const notifyAppended = `SELECT pg_notify('es_appended', '')`;

// ORDER BY must name events.revision: a bare `revision` is the text alias below and sorts "10" before "2".
const columns = `stream_id, revision::text AS revision, transaction_id::text AS commit, position::text AS prepare,
                 type, data, metadata`;

export const readStream = `
  SELECT ${columns} FROM es.events
  WHERE stream_id = $1 AND revision >= $2 ORDER BY events.revision LIMIT $3`;

export const readAll = `
  SELECT ${columns} FROM es.events
  WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint)
    AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  ORDER BY transaction_id, position LIMIT $3`;

export const headPosition = `
  SELECT transaction_id::text AS commit, position::text AS prepare FROM es.events
  WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  ORDER BY transaction_id DESC, position DESC LIMIT 1`;

export const findEventsById = `
  SELECT ${columns} FROM es.events WHERE event_id = ANY($1::uuid[]) ORDER BY events.stream_id, events.revision`;
