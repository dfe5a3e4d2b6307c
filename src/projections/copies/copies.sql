-- Adoptions (kept copy records) and every version of every organization copy chain. Personal data
-- stays sealed with the chain's own key (sealed_data); the rest is plain for analysts.
CREATE TABLE IF NOT EXISTS adoptions (
  adoption_id         uuid        PRIMARY KEY,
  request_id          uuid        NOT NULL,
  organization_id     uuid        NOT NULL,
  slot_id             uuid        NOT NULL,
  source_resource_id  uuid        NOT NULL,
  source_version      integer     NOT NULL,
  resource_type       text        NOT NULL,
  -- 'pending' until the keep is in its chain, then 'materialized' with the chain fields below.
  state               text        NOT NULL,
  org_resource_id     uuid,
  org_version         integer,
  participant         jsonb,
  adopted_at          timestamptz NOT NULL,
  materialized_at     timestamptz,
  -- The organization deleted the copy (R-ERAS-02): its chain's versions are gone from copy_versions.
  deleted_at          timestamptz
);
CREATE INDEX IF NOT EXISTS adoptions_request ON adoptions (request_id, adopted_at);
CREATE TABLE IF NOT EXISTS copy_versions (
  org_resource_id     uuid        NOT NULL,
  org_version         integer     NOT NULL,
  -- 'copy' (a keep, with its adoption) or 'correction' (the organization's own revision).
  origin              text        NOT NULL,
  adoption_id         uuid,
  request_id          uuid        NOT NULL,
  organization_id     uuid        NOT NULL,
  slot_id             uuid        NOT NULL,
  source_resource_id  uuid        NOT NULL,
  resource_type       text        NOT NULL,
  name                text        NOT NULL,
  schema_ref          text,
  sealed_data         text,
  blob_id             uuid,
  file_name           text,
  mime_type           text,
  file_size           bigint,
  label               text,
  created_at          timestamptz NOT NULL,
  PRIMARY KEY (org_resource_id, org_version)
);
CREATE INDEX IF NOT EXISTS copy_versions_request ON copy_versions (request_id);
-- The organization's own attachments to a request; the bytes sit sealed with its key under blob_id.
CREATE TABLE IF NOT EXISTS org_attachments (
  org_file_id      uuid        NOT NULL,
  org_version      integer     NOT NULL,
  request_id       uuid        NOT NULL,
  organization_id  uuid        NOT NULL,
  blob_id          uuid        NOT NULL,
  file_name        text        NOT NULL,
  mime_type        text        NOT NULL,
  file_size        bigint      NOT NULL,
  added_at         timestamptz NOT NULL,
  PRIMARY KEY (org_file_id, org_version)
);
CREATE INDEX IF NOT EXISTS org_attachments_request ON org_attachments (request_id);
