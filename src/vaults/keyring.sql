-- Vault data keys, wrapped by MASTER_KEY. Outside the event log on purpose: erasing a key
-- (crypto-shredding) must really delete it, and the log is append-only.
SELECT pg_advisory_xact_lock(hashtext('keys.schema'));
CREATE SCHEMA IF NOT EXISTS keys;
CREATE TABLE IF NOT EXISTS keys.vault_keys (
  vault_id     uuid        PRIMARY KEY,
  -- NULL once erased: every ciphertext of the vault is unreadable from then on, everywhere.
  wrapped_key  bytea,
  -- Which master key wraps it (a fingerprint), so a rotation knows what is left to re-wrap.
  master_id    text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  erased_at    timestamptz
);
