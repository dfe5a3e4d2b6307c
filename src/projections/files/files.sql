-- Every file of every vault and each of its versions. Names and content types are in clear (as a
-- document's name is); the bytes are not here at all: blob_id names them sealed in files.blobs.
CREATE TABLE IF NOT EXISTS files (
  resource_id  uuid        PRIMARY KEY,
  vault_id     uuid        NOT NULL,
  label        text,
  -- The newest version: the spec's sourceVersion.
  version      integer     NOT NULL,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS files_vault ON files (vault_id, created_at);

CREATE TABLE IF NOT EXISTS file_versions (
  resource_id  uuid        NOT NULL,
  version      integer     NOT NULL,
  blob_id      uuid        NOT NULL,
  file_name    text        NOT NULL,
  mime_type    text        NOT NULL,
  file_size    bigint      NOT NULL,
  uploaded_at  timestamptz NOT NULL,
  PRIMARY KEY (resource_id, version)
);
