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
  transaction_id  xid8   NOT NULL DEFAULT pg_current_xact_id(),
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
