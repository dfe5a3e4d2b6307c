/** The event store's SQL, shared by the PostgreSQL and PGlite adapters. */

/**
 * Taken before anything else a transaction that appends does, when it must read the stream's head
 * first. An advisory lock assigns no transaction id, so the id the append's first write takes comes
 * after the previous appender's: the global order (transaction_id, position) then keeps every
 * stream's revisions in order. The append statements take the same lock (es.serialize_stream).
 */
export const serializeStream = `SELECT pg_advisory_xact_lock(hashtextextended('es.stream:' || $1, 0))`;

export const readHead = `SELECT revision::text AS revision, last_hash FROM es.streams WHERE stream_id = $1`;

/** SQLSTATE of es.head_moved: the append's compare-and-set found another head. */
export const HEAD_MOVED = 'SH409';

/** An empty `head` (the compare-and-set found another head) fails the statement: es.head_moved. */
const insertEvents = `
  INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata)
  SELECT coalesce(head.stream_id, es.head_moved($1)), r, e, t, d, m
  FROM unnest($4::bigint[], $5::uuid[], $6::text[], $7::jsonb[], $8::jsonb[]) AS x(r, e, t, d, m) LEFT JOIN head ON true
  RETURNING transaction_id::text AS commit, position::text AS prepare, revision::text AS revision`;

/**
 * One statement appends to a stream whose head the writer knows: a compare-and-set of the head
 * (revision and hash, $9 and $10) and the insert of the events, which fails when the head moved.
 * A concurrent writer waits on the stream's lock, then finds the head changed.
 */
export const appendToHead = `
  WITH head AS (
    UPDATE es.streams SET revision = $2, last_hash = $3
    WHERE stream_id = $1 AND revision = $9 AND last_hash = $10 AND es.serialize_stream($1)
    RETURNING stream_id)
  ${insertEvents}`;

/** The same for a stream that does not exist yet; a concurrent creator makes it fail. */
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

/**
 * A page of the log's global order after a position, holding `limit` events at most, and only
 * those `readable` admits. The limit is written into the text rather than passed: the lag gauge
 * reads pages of one event, the followers pages of hundreds, and a statement that took both as a
 * parameter would be planned anew on every run: its generic plan, costed for an unknown limit as a
 * tenth of the log, loses to the custom plans of the one-event pages (docs/decisions.md, "Read models").
 * Each limit is its own statement, whose generic plan reads that many.
 */
const pageAfter =
  (readable: string) =>
  (limit: number): string => `
  SELECT ${columns} FROM es.events
  WHERE (transaction_id, position) > ($1::text::xid8, $2::bigint) ${readable}
  ORDER BY transaction_id, position LIMIT ${pageLimit(limit)}`;

/** A page's size as it goes into a statement's text: a positive whole number, or the read fails before it is sent. */
function pageLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`a page holds a positive whole number of events, not ${limit}`);
  return limit;
}

/** Only below the oldest running transaction, so an event never becomes visible behind a reader's checkpoint. */
export const readAll = pageAfter('AND transaction_id < es.readable_below()');

/**
 * Every committed event after a position, also above the oldest running transaction. Only for a
 * reader that holds every appender off (a rebuild's swap, a switch to inline projection): no
 * append is then in flight, so nothing can later commit below what it read.
 */
export const readAllCommitted = pageAfter('');

export const headPosition = `
  SELECT transaction_id::text AS commit, position::text AS prepare FROM es.events
  WHERE transaction_id < es.readable_below()
  ORDER BY transaction_id DESC, position DESC LIMIT 1`;

export const findEventsById = `
  SELECT ${columns} FROM es.events WHERE event_id = ANY($1::uuid[]) ORDER BY events.stream_id, events.revision`;

/**
 * Several appends, each to its own stream with a known head, in one statement (group commit,
 * group-commit.ts). $1..$5 describe the streams (expected revision and hash: null for a stream to
 * create), sorted by stream id so that two batches lock their streams in the same order; $6..$11 the
 * events. Every stream's lock is taken before the first write (the InitPlan `SELECT count(*) FROM
 * locked` runs before either data-modifying part yields a row), so, as for one append, no
 * transaction id is assigned before all the locks are held. A stream whose head moved inserts
 * nothing and the others go on: the caller answers that append with a conflict.
 */
export const appendMany = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::text[])
      WITH ORDINALITY AS i(stream_id, expected_revision, expected_hash, revision, last_hash, n)),
  locked AS MATERIALIZED (
    SELECT stream_id, expected_revision, expected_hash, revision, last_hash FROM input
    WHERE es.serialize_stream(stream_id) ORDER BY n),
  created AS (
    INSERT INTO es.streams (stream_id, revision, last_hash)
    SELECT stream_id, revision, last_hash FROM locked
    WHERE expected_revision IS NULL AND (SELECT count(*) FROM locked) > 0
    ON CONFLICT (stream_id) DO NOTHING
    RETURNING stream_id),
  moved AS (
    UPDATE es.streams s SET revision = l.revision, last_hash = l.last_hash
    FROM locked l
    WHERE s.stream_id = l.stream_id AND s.revision = l.expected_revision AND s.last_hash = l.expected_hash
      AND (SELECT count(*) FROM locked) > 0
    RETURNING s.stream_id),
  heads AS (SELECT stream_id FROM created UNION ALL SELECT stream_id FROM moved)
  INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata)
  SELECT x.s, x.r, x.e, x.t, x.d, x.m
  FROM unnest($6::text[], $7::bigint[], $8::uuid[], $9::text[], $10::jsonb[], $11::jsonb[]) WITH ORDINALITY AS x(s, r, e, t, d, m, k)
  WHERE x.s IN (SELECT stream_id FROM heads)
  ORDER BY x.k
  RETURNING stream_id, transaction_id::text AS commit, position::text AS prepare, revision::text AS revision`;
