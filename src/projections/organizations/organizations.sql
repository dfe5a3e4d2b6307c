-- Organizations, their members and apps. A member is a normalized login address (it may have no
-- account yet); a member token is honoured only while its address is listed here (contract §8).
CREATE TABLE IF NOT EXISTS organizations (
  organization_id  uuid        PRIMARY KEY,
  name             text        NOT NULL,
  created_by       uuid        NOT NULL,
  created_at       timestamptz NOT NULL,
  -- The newest KeyWarmed not followed by a KeySealed (both NULL when sealed or never warmed).
  -- Warm also needs warmed_at to fall after the reading process started: see key-warmth.ts.
  key_warm_until   timestamptz,
  key_warmed_at    timestamptz,
  key_sealed_at    timestamptz
);
CREATE TABLE IF NOT EXISTS organization_members (
  organization_id  uuid        NOT NULL,
  email            text        NOT NULL,
  -- A JSON array of permission names in the contract's order.
  permissions      jsonb       NOT NULL,
  -- When the address became a member; a permission change keeps it, removal and re-adding resets it.
  added_at         timestamptz NOT NULL,
  -- The event that began this membership (a permission change keeps it): a member token names it,
  -- so one issued before a removal never works for a later membership of the address (R-ACC-04).
  membership_id    uuid        NOT NULL,
  PRIMARY KEY (organization_id, email)
);
CREATE INDEX IF NOT EXISTS organization_members_email ON organization_members (email);
CREATE TABLE IF NOT EXISTS organization_apps (
  client_id        uuid        PRIMARY KEY,
  organization_id  uuid        NOT NULL,
  name             text        NOT NULL,
  registered_at    timestamptz NOT NULL,
  -- Contract §13: a JSON array of the app's redirect URIs, empty for an app for user.request.open
  -- alone; with them, exactly one of jwks (a JWK Set of public keys) and jwks_uri is set.
  redirect_uris    jsonb       NOT NULL,
  jwks             jsonb,
  jwks_uri         text,
  -- Contract §13: {issuer, clientId} of the organization's OpenID Connect provider, or null.
  identity_provider jsonb
);
CREATE INDEX IF NOT EXISTS organization_apps_organization ON organization_apps (organization_id);
