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
