-- Requests as stored facts only: the spec's state and each record's status depend on the clock,
-- the resources and the entity roles at the moment of reading, so they are computed then, never here.
CREATE TABLE IF NOT EXISTS requests (
  request_id             uuid        PRIMARY KEY,
  organization_id        uuid        NOT NULL,
  manifest_id            uuid        NOT NULL,
  manifest_version       integer     NOT NULL,
  recipient_email        text        NOT NULL,
  initiated_by           text        NOT NULL,
  initiating_client_id   text,
  invitation_expires_at  timestamptz NOT NULL,
  created_at             timestamptz NOT NULL,
  -- The log position of RequestSent: orders requests sent within the same millisecond.
  sent_commit            numeric     NOT NULL,
  sent_prepare           numeric     NOT NULL,
  phase                  text        NOT NULL,
  accepted_at            timestamptz,
  retention_ms           bigint
);
CREATE INDEX IF NOT EXISTS requests_organization ON requests (organization_id, created_at);
CREATE INDEX IF NOT EXISTS requests_recipient ON requests (recipient_email, created_at);
-- Every answer ever granted. A withdrawn one keeps its row, marked, so nothing granted is lost.
CREATE TABLE IF NOT EXISTS request_grants (
  request_id    uuid        NOT NULL,
  slot_id       uuid        NOT NULL,
  resource_id   uuid        NOT NULL,
  -- null: the recipient's own resource; else the legal entity whose vault holds it.
  entity_id     uuid,
  granted_at    timestamptz NOT NULL,
  withdrawn_at  timestamptz,
  PRIMARY KEY (request_id, slot_id, resource_id)
);
-- Where a resource is granted now: asked for every new version of a document or file (the copy workers).
CREATE INDEX IF NOT EXISTS request_grants_resource ON request_grants (resource_id) WHERE withdrawn_at IS NULL;
