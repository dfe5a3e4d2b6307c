-- One-time download links of user.export (R-EXP-02). Only a hash of the link's secret is kept, as
-- for login codes, so a read of this table hands out no download; a link is deleted when redeemed
-- and expired ones when the next link is made, so no address lingers here.
SELECT pg_advisory_xact_lock(hashtext('exports.schema'));
CREATE SCHEMA IF NOT EXISTS exports;
CREATE TABLE IF NOT EXISTS exports.links (
  link_hash    bytea       PRIMARY KEY,
  identity_id  uuid        NOT NULL,
  -- The session that asked: revoking it (or erasing the account) voids the link too.
  session_id   uuid        NOT NULL,
  email        text        NOT NULL,
  expires_at   timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS links_expiry ON exports.links (expires_at);
