/** The event store's SQL, shared by the PostgreSQL and PGlite adapters. */

/**
 * Taken before anything else a transaction that appends does, when it must read the stream's head
 * first. An advisory lock assigns no transaction id, so the id the append's first write takes comes
 * after the previous appender's: the global order (transaction_id, position) then keeps every
 * stream's revisions in order. The append statements take the same lock (es.serialize_stream).
 */
export const serializeStream = `SELECT pg_advisory_xact_lock(hashtextextended('es.stream:' || $1, 0))`;

export const readHead = `SELECT revision::text AS revision, last_hash FROM es.streams WHERE stream_id = $1`;

const insertEvents = `
  INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata)
  SELECT $1, r, e, t, d, m
  FROM head, unnest($4::bigint[], $5::uuid[], $6::text[], $7::jsonb[], $8::jsonb[]) AS x(r, e, t, d, m)
  RETURNING transaction_id::text AS commit, position::text AS prepare, revision::text AS revision`;

/**
 * One statement appends to a stream whose head the writer knows: a compare-and-set of the head
 * (revision and hash, $9 and $10) and the insert of the events, which inserts nothing when the
 * head moved. A concurrent writer waits on the stream's lock, then finds the head changed.
 */
export const appendToHead = `
  WITH head AS (
    UPDATE es.streams SET revision = $2, last_hash = $3
    WHERE stream_id = $1 AND revision = $9 AND last_hash = $10 AND es.serialize_stream($1)
    RETURNING stream_id)
  ${insertEvents}`;

/** The same for a stream that does not exist yet; a concurrent creator makes it insert nothing. */
export const appendToNewStream = `
  WITH head AS (
    INSERT INTO es.streams (stream_id, revision, last_hash)
    SELECT $1, $2, $3 WHERE es.serialize_stream($1)
    ON CONFLICT (stream_id) DO NOTHING
    RETURNING stream_id)
  ${insertEvents}`;

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

/**
 * Every committed event after a position, also above the oldest running transaction. Only for a
 * reader that holds every appender off (a rebuild's swap, a switch to inline projection): no
 * append is then in flight, so nothing can later commit below what it read.
 */
export const readAllCommitted = `
  SELECT ${columns} FROM es.events
  WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint)
  ORDER BY transaction_id, position LIMIT $3`;

export const headPosition = `
  SELECT transaction_id::text AS commit, position::text AS prepare FROM es.events
  WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  ORDER BY transaction_id DESC, position DESC LIMIT 1`;

export const findEventsById = `
  SELECT ${columns} FROM es.events WHERE event_id = ANY($1::uuid[]) ORDER BY events.stream_id, events.revision`;
