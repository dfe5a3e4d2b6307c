-- Every login session, for the per-request check (revoked? expired?) and for user.me.
CREATE TABLE IF NOT EXISTS sessions (
  session_id       uuid        PRIMARY KEY,
  identity_id      uuid        NOT NULL,
  created_at       timestamptz NOT NULL,
  expires_at       timestamptz NOT NULL,
  revoked_at       timestamptz,
  verified_emails  jsonb       NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS sessions_identity ON sessions (identity_id, created_at);
