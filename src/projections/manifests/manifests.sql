-- Every version of every manifest: a request pins one version, and reads it later as published.
CREATE TABLE IF NOT EXISTS manifests (
  manifest_id      uuid        PRIMARY KEY,
  organization_id  uuid        NOT NULL,
  name             text        NOT NULL,
  latest_version   integer     NOT NULL,
  created_at       timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS manifests_organization ON manifests (organization_id, created_at);
CREATE TABLE IF NOT EXISTS manifest_versions (
  manifest_id      uuid        NOT NULL,
  version          integer     NOT NULL,
  organization_id  uuid        NOT NULL,
  name             text        NOT NULL,
  -- §11: why the organization asks; '' for a version published before purposes.
  purpose          text        NOT NULL,
  -- ISO 8601 duration as published (at least PT1S).
  retention        text        NOT NULL,
  -- The slots of contract §3 and §11 (Slot objects, subject null when the slot asks about no party).
  slots            jsonb       NOT NULL,
  published_at     timestamptz NOT NULL,
  PRIMARY KEY (manifest_id, version)
);
