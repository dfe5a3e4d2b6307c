-- One row per projector: the global position of the last event it applied, written in the same
-- transaction as the rows that event produced. Positions are (commit, prepare) pairs; see
-- src/events/position.ts. numeric holds the full unsigned 64-bit range of xid8.
CREATE TABLE IF NOT EXISTS projection_checkpoints (
  projector    text        PRIMARY KEY,
  version      integer     NOT NULL,
  commit_pos   numeric(20) NOT NULL,
  prepare_pos  numeric(20) NOT NULL,
  events_seen  bigint      NOT NULL DEFAULT 0,
  updated_at   timestamptz NOT NULL DEFAULT now()
);

-- A projector stalled on an event it cannot apply: that event's position, the error's class
-- (never its message) and since when. Set by the lease holder, cleared when the checkpoint moves.
-- Added only when missing: ALTER TABLE waits for every row lock, and an instance starting must
-- not wait for another's batch. (Internal semicolons stay mid-line: the file is split on ";\n".)
DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'projection_checkpoints' AND column_name = 'stalled_commit') THEN
  ALTER TABLE projection_checkpoints ADD COLUMN stalled_commit numeric(20), ADD COLUMN stalled_prepare numeric(20), ADD COLUMN stalled_error text, ADD COLUMN stalled_since timestamptz; END IF; END $$;

-- true while the projector runs inline, inside every append's transaction: its rows are then
-- current by construction and commit_pos only says where inline projection began.
DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'projection_checkpoints' AND column_name = 'inline') THEN
  ALTER TABLE projection_checkpoints ADD COLUMN inline boolean NOT NULL DEFAULT false; END IF; END $$;
