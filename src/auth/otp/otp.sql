-- One-time codes and their limits: operational state, not events (codes are secret and short-lived).
-- Addresses appear only as keyed hashes (subject); codes only as keyed hashes (code_hash).
SELECT pg_advisory_xact_lock(hashtext('auth.schema'));
CREATE SCHEMA IF NOT EXISTS auth;

-- One row per address; locked by every send and verify of that address, so concurrent calls
-- count and compare one at a time (ten parallel sends give exactly three mails).
CREATE TABLE IF NOT EXISTS auth.otp_subjects (
  subject text PRIMARY KEY
);

CREATE TABLE IF NOT EXISTS auth.otp_sends (
  send_id  uuid        PRIMARY KEY,
  subject  text        NOT NULL REFERENCES auth.otp_subjects,
  sent_at  timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS otp_sends_window ON auth.otp_sends (subject, sent_at);

-- The live code of an address for one purpose (login, or verifying a secondary address for one
-- identity); a new send replaces it, which makes the previous code fail.
CREATE TABLE IF NOT EXISTS auth.otp_codes (
  subject     text        NOT NULL REFERENCES auth.otp_subjects,
  purpose     text        NOT NULL,
  code_hash   text        NOT NULL,
  send_id     uuid        NOT NULL,
  expires_at  timestamptz NOT NULL,
  attempts    integer     NOT NULL DEFAULT 0,
  used_at     timestamptz,
  PRIMARY KEY (subject, purpose)
);

CREATE TABLE IF NOT EXISTS auth.otp_failures (
  subject    text        NOT NULL REFERENCES auth.otp_subjects,
  failed_at  timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS otp_failures_window ON auth.otp_failures (subject, failed_at);
