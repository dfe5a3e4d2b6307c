-- The authorization server's own state (contract §13, src/partner/oauth-store.ts): pushed requests,
-- interactions, codes, grants, sessions, tokens and seen DPoP proofs. Short-lived security state, not
-- domain facts: what a grant did to a person's data is in the log (the request it opened).
CREATE SCHEMA IF NOT EXISTS oauth;
CREATE TABLE IF NOT EXISTS oauth.artifacts (
  model       text        NOT NULL,
  id          text        NOT NULL,
  payload     jsonb       NOT NULL,
  grant_id    text,
  uid         text,
  expires_at  timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (model, id)
);
CREATE INDEX IF NOT EXISTS artifacts_grant ON oauth.artifacts (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS artifacts_uid ON oauth.artifacts (model, uid) WHERE uid IS NOT NULL;
CREATE INDEX IF NOT EXISTS artifacts_expiry ON oauth.artifacts (expires_at);
-- Each DPoP proof's jti once, while it could still be accepted (RFC 9449 §11.1).
CREATE TABLE IF NOT EXISTS oauth.dpop_proofs (
  jti         text        PRIMARY KEY,
  expires_at  timestamptz NOT NULL
);
-- "Continue with <organization>" (src/partner/partner-sign-in.ts): a sign-in at an organization's
-- provider from its start to the callback, used once, bound to its browser by a cookie stored hashed.
CREATE TABLE IF NOT EXISTS oauth.partner_sign_ins (
  state       text        PRIMARY KEY,
  browser     text        NOT NULL,
  uid         text        NOT NULL,
  client_id   text        NOT NULL,
  verifier    text        NOT NULL,
  nonce       text        NOT NULL,
  silent      boolean     NOT NULL,
  expires_at  timestamptz NOT NULL
);
-- A first sign-in waiting for the one-time code that links the person at the provider (issuer,
-- subject) to an account here: nothing of the provider's tokens, and gone once linked or expired.
CREATE TABLE IF NOT EXISTS oauth.partner_links (
  browser     text        PRIMARY KEY,
  uid         text        NOT NULL,
  issuer      text        NOT NULL,
  subject     text        NOT NULL,
  expires_at  timestamptz NOT NULL
);
