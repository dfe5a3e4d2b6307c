-- Update proposals: every notice ever opened, open or closed with its reason (superseded,
-- dismissed, adopted, kept, withdrawn). The new version itself stays in the person's vault.
CREATE TABLE IF NOT EXISTS proposals (
  proposal_id      uuid        PRIMARY KEY,
  request_id       uuid        NOT NULL,
  organization_id  uuid        NOT NULL,
  slot_id          uuid        NOT NULL,
  resource_id      uuid        NOT NULL,
  new_version      integer     NOT NULL,
  participant      jsonb,
  proposed_at      timestamptz NOT NULL,
  state            text        NOT NULL,
  closed_reason    text,
  closed_at        timestamptz
);
CREATE INDEX IF NOT EXISTS proposals_request ON proposals (request_id, proposed_at);
-- One row per candidate read of a person's record (R-PROP-03), for the person's user.receipts.
CREATE TABLE IF NOT EXISTS receipts (
  request_id       uuid        NOT NULL,
  organization_id  uuid        NOT NULL,
  recipient_email  text        NOT NULL,
  resource_id      uuid        NOT NULL,
  version          integer     NOT NULL,
  client_id        text,
  read_at          timestamptz NOT NULL,
  event_id         uuid        PRIMARY KEY
);
CREATE INDEX IF NOT EXISTS receipts_recipient ON receipts (recipient_email, read_at);
