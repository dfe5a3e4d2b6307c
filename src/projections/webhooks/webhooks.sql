-- The organizations' webhook endpoints (contract §12, docs/webhooks.md). The signing secret stays
-- sealed with the webhook's own key in the keyring; a deleted webhook has no row.
CREATE TABLE IF NOT EXISTS webhooks (
  webhook_id       uuid        PRIMARY KEY,
  organization_id  uuid        NOT NULL,
  url              text        NOT NULL,
  -- Catalogue types (src/events-feed/catalogue.ts) it is sent, in the order the member gave them.
  event_types      text[]      NOT NULL,
  description      text,
  -- False once disabled after 5 days of failed deliveries (R-HOOK-07); nothing re-enables it.
  enabled          boolean     NOT NULL,
  created_at       timestamptz NOT NULL,
  disabled_at      timestamptz,
  sealed_secret    text        NOT NULL
);
CREATE INDEX IF NOT EXISTS webhooks_organization ON webhooks (organization_id, created_at);
