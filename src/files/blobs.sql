-- File bytes, each blob sealed with its vault's key (iv | tag | AES-256-GCM ciphertext, the
-- associated data naming vault, file and version). Events hold only blob ids: the log stays small,
-- and erasing the vault key leaves these rows unreadable like everything else of the vault.
SELECT pg_advisory_xact_lock(hashtext('files.schema'));
CREATE SCHEMA IF NOT EXISTS files;
CREATE TABLE IF NOT EXISTS files.blobs (
  blob_id     uuid        PRIMARY KEY,
  sealed      bytea       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
-- Ciphertext does not compress: store it out of line without trying.
ALTER TABLE files.blobs ALTER COLUMN sealed SET STORAGE EXTERNAL;
