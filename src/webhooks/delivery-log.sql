-- Webhook deliveries (contract §12, docs/webhooks.md): what the delivery workers did, a record of
-- the outside world, not derived from the log. Outside the read-model schema on purpose, as the
-- reactors' checkpoints are: a replay rebuilds the read models and never repeats or forgets a delivery.
-- Run as one implicit transaction; the lock makes instances starting together take turns.
SELECT pg_advisory_xact_lock(hashtext('webhooks.schema'));
CREATE SCHEMA IF NOT EXISTS webhooks;

-- One row per (webhook, event) ever to be delivered: the key that delivers each event to each
-- webhook once, however often the reactor sees it (R-HOOK-04).
CREATE TABLE IF NOT EXISTS webhooks.deliveries (
  webhook_id       uuid        NOT NULL,
  event_id         uuid        NOT NULL,
  organization_id  uuid        NOT NULL,
  event_type       text        NOT NULL,
  -- The event exactly as every attempt sends (and signs) it.
  body             text        NOT NULL,
  -- pending: attempts go on by the schedule; delivered: one succeeded; failed: the schedule ran out.
  state            text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (webhook_id, event_id)
);

-- Every attempt: the delivery log a member reads, newest first (attempt_id).
CREATE TABLE IF NOT EXISTS webhooks.attempts (
  attempt_id       bigserial   PRIMARY KEY,
  webhook_id       uuid        NOT NULL,
  event_id         uuid        NOT NULL,
  -- Which attempt of the schedule it was (0 the first); null for one a member asked for.
  step             integer,
  -- Its number among the delivery's attempts, from 1.
  attempt          integer     NOT NULL,
  succeeded        boolean     NOT NULL,
  response_status  integer,
  duration_ms      integer     NOT NULL,
  error            text,
  at               timestamptz NOT NULL
);
-- A scheduled attempt is made once, however often its job runs.
CREATE UNIQUE INDEX IF NOT EXISTS attempts_step ON webhooks.attempts (webhook_id, event_id, step) WHERE step IS NOT NULL;
CREATE INDEX IF NOT EXISTS attempts_webhook ON webhooks.attempts (webhook_id, attempt_id);
CREATE INDEX IF NOT EXISTS attempts_succeeded ON webhooks.attempts (webhook_id, attempt_id) WHERE succeeded;

-- Where each organization's webhooks stand in its events feed: the cursor the feed gave last.
CREATE TABLE IF NOT EXISTS webhooks.feed_cursors (
  organization_id  uuid PRIMARY KEY,
  after            text NOT NULL
);
