-- The event log shared by the PostgreSQL and PGlite adapters. Run as one implicit transaction;
-- the lock keeps several instances starting on a fresh database from colliding on CREATE.
SELECT pg_advisory_xact_lock(hashtext('es.schema'));
CREATE SCHEMA IF NOT EXISTS es;

-- One row per stream: its revision (0-based number of its last event) and the hash of that event.
-- Appenders lock this row, so writers of one stream serialize while other streams run in parallel.
CREATE TABLE IF NOT EXISTS es.streams (
  stream_id  text   PRIMARY KEY,
  revision   bigint NOT NULL CHECK (revision >= 0),
  last_hash  text   NOT NULL
);

-- Append-only. position comes from a sequence, so concurrent transactions commit positions out
-- of order; readers order by (transaction_id, position) and only read below the oldest running
-- transaction (pg_snapshot_xmin), so an event never becomes visible behind a reader's checkpoint.
CREATE TABLE IF NOT EXISTS es.events (
  position        bigint GENERATED ALWAYS AS IDENTITY,
  transaction_id  xid8   NOT NULL,
  stream_id       text   NOT NULL,
  revision        bigint NOT NULL,
  event_id        uuid   NOT NULL,
  type            text   NOT NULL,
  data            jsonb  NOT NULL,
  metadata        jsonb  NOT NULL,
  PRIMARY KEY (stream_id, revision),
  CONSTRAINT events_event_id_unique UNIQUE (event_id)
);
CREATE INDEX IF NOT EXISTS events_global_order ON es.events (transaction_id, position);

-- The global order's first key must only grow, but a cluster restored from pg_dump starts its
-- transaction ids anew, far below those it restored: new events would sort before old ones and
-- below every reader's checkpoint, and old ones above the oldest running transaction would never
-- become readable. So the stored id is the transaction id plus a shift, raised at every start to lie
-- above every id already stored (docs/operations.md). In a cluster that was never restored the shift
-- stays 0. Readers compare with the oldest running transaction shifted the same way.
CREATE TABLE IF NOT EXISTS es.xid_shift (
  only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  shift     numeric NOT NULL
);
INSERT INTO es.xid_shift (only_row, shift) VALUES (true, 0) ON CONFLICT (only_row) DO NOTHING;
UPDATE es.xid_shift
SET shift = (SELECT max(transaction_id)::text::numeric FROM es.events) - pg_current_xact_id()::text::numeric + 1
WHERE (SELECT max(transaction_id)::text::numeric FROM es.events) >= pg_current_xact_id()::text::numeric + shift;
-- The shift is written into the two functions as a constant, so each is one expression that the
-- planner inlines: read from es.xid_shift in every call, the append's default cost a third of its
-- server time (a SQL function with a FROM is planned anew in every statement). A function is
-- replaced only when its text changes, which invalidates the plans that inlined it.
DO $$
DECLARE
  shift constant numeric := (SELECT x.shift FROM es.xid_shift x);
  shifted constant text := CASE WHEN shift = 0 THEN '%s' ELSE '(%s::text::numeric + ' || shift || ')::text::xid8' END;
  functions constant text[][] := ARRAY[
    ['xid_now', 'VOLATILE', format(shifted, 'pg_current_xact_id()')],
    ['readable_below', 'STABLE', format(shifted, 'pg_snapshot_xmin(pg_current_snapshot())')]];
  f text[];
BEGIN
  FOREACH f SLICE 1 IN ARRAY functions LOOP
    IF (SELECT prosrc FROM pg_proc WHERE oid = to_regproc('es.' || f[1])) IS DISTINCT FROM 'SELECT ' || f[3] THEN
      EXECUTE format('CREATE OR REPLACE FUNCTION es.%I() RETURNS xid8 LANGUAGE sql %s AS %L', f[1], f[2], 'SELECT ' || f[3]);
    END IF;
  END LOOP;
END $$;
-- Set once: an ALTER TABLE at every start would wait for, and then block, every query of the log.
DO $$
BEGIN
  IF NOT (SELECT atthasdef FROM pg_attribute WHERE attrelid = 'es.events'::regclass AND attname = 'transaction_id') THEN
    ALTER TABLE es.events ALTER COLUMN transaction_id SET DEFAULT es.xid_now();
  END IF;
END $$;

-- An event is never changed once written.
CREATE OR REPLACE FUNCTION es.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'es.events is append-only';
END $$;
DROP TRIGGER IF EXISTS events_append_only ON es.events;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON es.events
  FOR EACH ROW EXECUTE FUNCTION es.refuse_change();

-- Serializes the appenders of one stream before any of them takes a transaction id (an advisory
-- lock assigns none), so the global order (transaction_id, position) keeps every stream's revisions
-- in order. Called from the append statement's WHERE, it is taken before the row is written.
CREATE OR REPLACE FUNCTION es.serialize_stream(stream text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('es.stream:' || stream, 0));
  RETURN true;
END $$;

-- Fails an append whose stream head moved since its writer read it (queries.appendToHead): an
-- error, not an empty insert, so that the statements its transaction sent behind it, without
-- waiting for its answer (the inline read models', COMMIT), roll back with it.
CREATE OR REPLACE FUNCTION es.head_moved(stream text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION 'the head of stream % moved since it was read', stream USING ERRCODE = 'SH409';
END $$;
