-- Contract §10.13: every SCHEMA_BASE the service has been served under on this database, so the
-- built-in ids stored under an earlier base keep naming their built-ins. Operational state, not events.
SELECT pg_advisory_xact_lock(hashtext('schemas.schema'));
CREATE SCHEMA IF NOT EXISTS schemas;
CREATE TABLE IF NOT EXISTS schemas.served_bases (
  base             text        PRIMARY KEY,
  first_served_at  timestamptz NOT NULL DEFAULT now()
);
