-- One row per identity (allocated at its first verify-otp); registered_at is set by user.register.
-- email is the login address: requests reach a person only there.
CREATE TABLE IF NOT EXISTS identities (
  identity_id      uuid        PRIMARY KEY,
  email            text        NOT NULL UNIQUE,
  created_at       timestamptz NOT NULL,
  registered_at    timestamptz,
  display_name     text,
  verified_emails  jsonb       NOT NULL DEFAULT '[]'
);
