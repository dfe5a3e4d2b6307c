-- One-time codes: operational state, not events (codes are secret and short-lived). Addresses
-- appear only as keyed hashes (subject); codes only as keyed hashes (code_hash). Their send and
-- failure limits live in limits.* (src/limits), under a row lock per address and per client.
SELECT pg_advisory_xact_lock(hashtext('auth.schema'));
CREATE SCHEMA IF NOT EXISTS auth;

-- The live code of an address for one purpose (login, or verifying a secondary address for one
-- identity); a new send replaces it, which makes the previous code fail.
CREATE TABLE IF NOT EXISTS auth.otp_codes (
  subject     text        NOT NULL,
  purpose     text        NOT NULL,
  code_hash   text        NOT NULL,
  send_id     uuid        NOT NULL,
  expires_at  timestamptz NOT NULL,
  -- Unread: a code's tries count per client address in limits.* (§10.9). Kept so an instance of
  -- the release before, running beside this one in a rolling deploy, still writes its rows.
  attempts    integer     NOT NULL DEFAULT 0,
  used_at     timestamptz,
  PRIMARY KEY (subject, purpose)
);

-- The counts and the per-address lock that lived here before the shared limits: the windows
-- start afresh once (at most an hour of sends and a day of failures are forgotten).
ALTER TABLE auth.otp_codes DROP CONSTRAINT IF EXISTS otp_codes_subject_fkey;
DROP TABLE IF EXISTS auth.otp_sends, auth.otp_failures, auth.otp_subjects;
