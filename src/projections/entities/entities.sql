-- Legal entities and their members. A member is a normalized login address (it may have no
-- account yet); a caller belongs to an entity when their login address is listed here.
CREATE TABLE IF NOT EXISTS entities (
  entity_id   uuid        PRIMARY KEY,
  name        text        NOT NULL,
  created_by  uuid        NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS entity_members (
  entity_id  uuid  NOT NULL,
  email      text  NOT NULL,
  role       text  NOT NULL CHECK (role IN ('MANAGER', 'MEMBER')),
  PRIMARY KEY (entity_id, email)
);
CREATE INDEX IF NOT EXISTS entity_members_email ON entity_members (email);
