-- One row per stream of the event log: what it is, how far it went, when it last moved.
-- For operators and analysts ("how many requests were created this week"), and for replay checks.
CREATE TABLE IF NOT EXISTS stream_heads (
  stream_id         text        PRIMARY KEY,
  category          text        NOT NULL,
  revision          bigint      NOT NULL,
  event_count       bigint      NOT NULL,
  first_type        text        NOT NULL,
  last_type         text        NOT NULL,
  created_at        timestamptz NOT NULL,
  last_occurred_at  timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS stream_heads_category ON stream_heads (category, last_occurred_at);
