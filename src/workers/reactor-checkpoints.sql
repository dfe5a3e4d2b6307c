-- Where each reactor stands in the log. Outside the read-model schema on purpose: a replay rebuilds
-- the read models and never moves these, so no reaction runs twice because of a rebuild.
CREATE SCHEMA IF NOT EXISTS reactors;
CREATE TABLE IF NOT EXISTS reactors.checkpoints (
  reactor      text        PRIMARY KEY,
  commit_pos   numeric     NOT NULL,
  prepare_pos  numeric     NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
