-- Where the log checkpointer stands (src/workers/log-checkpointer.ts): the last event it summarized,
-- how many events the log held up to it, and every stream's head as of it. Written in one
-- transaction, so a restart resumes exactly. Beside the reactors' checkpoints and, like them,
-- outside the read models: a replay never moves it.
CREATE SCHEMA IF NOT EXISTS reactors;
CREATE TABLE IF NOT EXISTS reactors.log_checkpointer (
  only_row     boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
  commit_pos   numeric     NOT NULL,
  prepare_pos  numeric     NOT NULL,
  events       bigint      NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS reactors.log_heads (
  stream_id  text   PRIMARY KEY,
  revision   bigint NOT NULL,
  hash       text   NOT NULL
);
