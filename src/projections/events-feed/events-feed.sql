-- The events feed (contract §12, docs/events.md): the catalogue's thin events, one row each, in log
-- order, ids and versions only. Applied in log order alone (followsLog): record.updated reads the
-- grants and phases below as the log stood at the new version, the same live and on a rebuild.
CREATE TABLE IF NOT EXISTS events_feed (
  -- The place in the log of the event it comes from, and its number among the feed events that one
  -- gave: the feed's order and its cursors, which stay valid for ever.
  commit_pos       numeric     NOT NULL,
  prepare_pos      numeric     NOT NULL,
  ordinal          integer     NOT NULL,
  source_event_id  uuid        NOT NULL,
  type             text        NOT NULL,
  organization_id  uuid        NOT NULL,
  occurred_at      timestamptz NOT NULL,
  request_id       uuid,
  slot_id          uuid,
  resource_id      uuid,
  -- The legal entity the record is of: shown as its pairwise alias (R-REQ-16), never as is.
  entity_id        uuid,
  adoption_id      uuid,
  proposal_id      uuid,
  source_version   integer,
  org_version      integer,
  -- No event id: it is derived when read (src/events-feed/events-feed.ts#FEED_EVENT_ID), as no read looks one up.
  PRIMARY KEY (commit_pos, prepare_pos, ordinal)
);
-- A page of one organization's feed after a cursor.
CREATE INDEX IF NOT EXISTS events_feed_organization ON events_feed (organization_id, commit_pos, prepare_pos, ordinal);

-- Each request's organization and phase as the log stood: whose feed an event of it goes to, and
-- whether a new version of a record it was granted reaches it.
CREATE TABLE IF NOT EXISTS events_feed_requests (
  request_id       uuid        PRIMARY KEY,
  organization_id  uuid        NOT NULL,
  phase            text        NOT NULL,
  accepted_at      timestamptz,
  retention_ms     bigint
);

-- Every record granted, a withdrawn one marked: where a new version is felt, and whose record it is.
CREATE TABLE IF NOT EXISTS events_feed_grants (
  request_id   uuid    NOT NULL,
  slot_id      uuid    NOT NULL,
  resource_id  uuid    NOT NULL,
  entity_id    uuid,
  withdrawn    boolean NOT NULL,
  PRIMARY KEY (request_id, slot_id, resource_id)
);
CREATE INDEX IF NOT EXISTS events_feed_grants_resource ON events_feed_grants (resource_id) WHERE NOT withdrawn;

-- Each proposal's record: proposal.closed names it, where its event names only the proposal.
CREATE TABLE IF NOT EXISTS events_feed_proposals (
  proposal_id  uuid PRIMARY KEY,
  slot_id      uuid NOT NULL,
  resource_id  uuid NOT NULL
);
