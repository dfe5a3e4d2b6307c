-- Sliding-window rate limits (src/limits): operational state, not events. Bucket names are kept
-- only as keyed hashes, so no address, IP or identity sits here in clear.
SELECT pg_advisory_xact_lock(hashtext('limits.schema'));
CREATE SCHEMA IF NOT EXISTS limits;

-- One row per bucket, locked by every call that counts against it, so concurrent calls count and
-- compare one at a time (ten parallel calls against a limit of three: exactly three pass).
CREATE TABLE IF NOT EXISTS limits.buckets (
  bucket text PRIMARY KEY
);

-- One row per counted call and bucket; it stops counting at expires_at (its time plus the window).
CREATE TABLE IF NOT EXISTS limits.hits (
  bucket      text        NOT NULL,
  hit_id      uuid        NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS hits_window ON limits.hits (bucket, expires_at);
CREATE INDEX IF NOT EXISTS hits_id ON limits.hits (hit_id);
