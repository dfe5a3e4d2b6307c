-- The embedded job queue, in the service's own database (PGlite or PostgreSQL).
-- Run as one implicit transaction; the lock makes instances starting together on a fresh database
-- take turns, since concurrent CREATE ... IF NOT EXISTS can still collide in the catalog.
SELECT pg_advisory_xact_lock(hashtext('queue.schema'));
CREATE SCHEMA IF NOT EXISTS queue;

-- One row per job, kept after it completes (for keep_completed) so a re-enqueued id is recognised.
-- state 'waiting' with run_at in the future is a delayed retry; 'active' rows belong to the
-- worker holding lock_token until locked_until, after which any worker may take them over.
CREATE TABLE IF NOT EXISTS queue.jobs (
  queue_name    text        NOT NULL,
  job_id        text        NOT NULL,
  payload       jsonb       NOT NULL,
  state         text        NOT NULL DEFAULT 'waiting'
                CHECK (state IN ('waiting', 'active', 'completed', 'failed')),
  attempt       integer     NOT NULL DEFAULT 0,   -- runs started so far
  max_attempts  integer     NOT NULL CHECK (max_attempts > 0),
  backoff_ms    integer     NOT NULL CHECK (backoff_ms >= 0),
  run_at        timestamptz NOT NULL DEFAULT now(),
  locked_until  timestamptz,
  lock_token    uuid,
  last_error    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz,
  PRIMARY KEY (queue_name, job_id)
);
CREATE INDEX IF NOT EXISTS jobs_due ON queue.jobs (queue_name, state, run_at);
CREATE INDEX IF NOT EXISTS jobs_completed ON queue.jobs (finished_at) WHERE state = 'completed';
