-- Every document of every vault: metadata and schema in clear, data sealed with the vault's key
-- (base64 of iv | tag | AES-256-GCM ciphertext). Deleted documents keep their row, marked.
CREATE TABLE IF NOT EXISTS documents (
  resource_id       uuid        PRIMARY KEY,
  vault_id          uuid        NOT NULL,
  name              text        NOT NULL,
  description       text,
  schema_ref        text,
  document_schema   jsonb,
  unique_per_vault  boolean     NOT NULL,
  version           integer     NOT NULL,
  sealed_data       text        NOT NULL,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  deleted_at        timestamptz
);
CREATE INDEX IF NOT EXISTS documents_vault ON documents (vault_id, created_at) WHERE deleted_at IS NULL;

-- When each version was published: the person's list of versions. Their data stays in the log only,
-- sealed in each version's event.
CREATE TABLE IF NOT EXISTS document_versions (
  resource_id   uuid        NOT NULL,
  version       integer     NOT NULL,
  published_at  timestamptz NOT NULL,
  PRIMARY KEY (resource_id, version)
);
