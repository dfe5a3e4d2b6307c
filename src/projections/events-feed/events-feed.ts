import { readFileSync } from 'node:fs';
import type { SqlExecutor } from '../../db/sql.js';
import { chainEvents, type ChainEvent } from '../../events/copy-events.js';
import { eitherOf, type Recorded } from '../../events/decoder.js';
import { organizationEvents, type OrganizationEvent } from '../../events/organization-events.js';
import { requestEvents, type RequestEvent } from '../../events/request-events.js';
import { resourceEvents, type ResourceEvent } from '../../events/resource-events.js';
import type { FeedEventType } from '../../events-feed/catalogue.js';
import { projector, type Statement, type TypedHandlers } from '../projector.js';

/** The families the feed reads; docs/events.md says which event gives which feed event. */
type Read = RequestEvent | ChainEvent | OrganizationEvent | ResourceEvent;

const columns = `commit_pos, prepare_pos, source_event_id, occurred_at, ordinal, type, organization_id,
                 request_id, slot_id, resource_id, entity_id, adoption_id, proposal_id, source_version, org_version`;
/** $1 to $5 of a feed row: its source event's place in the log, id and time, and the row's number among that event's rows. */
const place = `$1::numeric, $2::numeric, $3::uuid, $4::timestamptz, $5::integer`;

const sql = {
  /**
   * An event of a request's, in its organization's feed; the record's legal entity from its grant.
   * proposal.closed names only its proposal: its record is the one the proposal was opened on.
   */
  ofRequest: `INSERT INTO events_feed (${columns})
    SELECT ${place}, $6::text, r.organization_id, r.request_id, coalesce($8::uuid, p.slot_id), coalesce($9::uuid, p.resource_id),
           g.entity_id, $10::uuid, $11::uuid, $12::integer, $13::integer
    FROM events_feed_requests r
    LEFT JOIN events_feed_proposals p ON $6::text = 'proposal.closed' AND p.proposal_id = $11::uuid
    LEFT JOIN events_feed_grants g
      ON g.request_id = r.request_id AND g.slot_id = coalesce($8::uuid, p.slot_id) AND g.resource_id = coalesce($9::uuid, p.resource_id)
    WHERE r.request_id = $7::uuid`,
  /** slot.granted of a record the slot does not hold already: a grant lists every record of the slot so far. */
  granted: `INSERT INTO events_feed (${columns})
    SELECT ${place}, 'slot.granted', r.organization_id, r.request_id, $7::uuid, $8::uuid, $9::uuid, NULL, NULL, NULL, NULL
    FROM events_feed_requests r
    WHERE r.request_id = $6::uuid AND NOT EXISTS (
      SELECT 1 FROM events_feed_grants g
      WHERE g.request_id = r.request_id AND g.slot_id = $7::uuid AND g.resource_id = $8::uuid AND NOT g.withdrawn)`,
  /**
   * record.updated, once for each slot of a connection that is active when the version is published
   * (within the retention of its accepted terms) and holds the record then, as the log stands.
   */
  updated: `INSERT INTO events_feed (${columns})
    SELECT $1::numeric, $2::numeric, $3::uuid, $4::timestamptz, (row_number() OVER (ORDER BY g.request_id, g.slot_id))::integer - 1,
           'record.updated', r.organization_id, g.request_id, g.slot_id, g.resource_id, g.entity_id, NULL, NULL, $6::integer, NULL
    FROM events_feed_grants g JOIN events_feed_requests r ON r.request_id = g.request_id
    WHERE g.resource_id = $5::uuid AND NOT g.withdrawn AND r.phase = 'active'
      AND r.accepted_at + r.retention_ms * interval '1 millisecond' > $4::timestamptz`,
  /**
   * updated for many versions at once: each array holds one of updated's six parameters. Each
   * version's grants and their requests are looked up apart (LATERAL, OFFSET 0), so every plan reads
   * them by index however large they grow; as a join, a plan made while they were small would read
   * them whole for every run (a replay's fresh tables).
   */
  updatedMany: `INSERT INTO events_feed (${columns})
    SELECT i.commit_pos, i.prepare_pos, i.source_event_id, i.occurred_at, (u.n - 1)::integer,
           'record.updated', u.organization_id, u.request_id, u.slot_id, i.resource_id, u.entity_id, NULL, NULL, i.version, NULL
    FROM unnest($1::numeric[], $2::numeric[], $3::uuid[], $4::timestamptz[], $5::uuid[], $6::integer[])
      AS i(commit_pos, prepare_pos, source_event_id, occurred_at, resource_id, version)
    CROSS JOIN LATERAL (
      SELECT g.request_id, g.slot_id, g.entity_id, r.organization_id, row_number() OVER (ORDER BY g.request_id, g.slot_id) AS n
      FROM events_feed_grants g
      CROSS JOIN LATERAL (
        SELECT r.organization_id FROM events_feed_requests r
        WHERE r.request_id = g.request_id AND r.phase = 'active'
          AND r.accepted_at + r.retention_ms * interval '1 millisecond' > i.occurred_at
        OFFSET 0) r
      WHERE g.resource_id = i.resource_id AND NOT g.withdrawn
      OFFSET 0) u`,
  /** ofRequest for many events at once: each array holds one of ofRequest's thirteen parameters. */
  ofRequests: `INSERT INTO events_feed (${columns})
    SELECT i.commit_pos, i.prepare_pos, i.source_event_id, i.occurred_at, i.ordinal, i.type, r.organization_id, r.request_id,
           coalesce(i.slot_id, p.slot_id), coalesce(i.resource_id, p.resource_id), g.entity_id, i.adoption_id, i.proposal_id,
           i.source_version, i.org_version
    FROM unnest($1::numeric[], $2::numeric[], $3::uuid[], $4::timestamptz[], $5::integer[], $6::text[], $7::uuid[],
                $8::uuid[], $9::uuid[], $10::uuid[], $11::uuid[], $12::integer[], $13::integer[])
      AS i(commit_pos, prepare_pos, source_event_id, occurred_at, ordinal, type, request_id,
           slot_id, resource_id, adoption_id, proposal_id, source_version, org_version)
    JOIN events_feed_requests r ON r.request_id = i.request_id
    LEFT JOIN events_feed_proposals p ON i.type = 'proposal.closed' AND p.proposal_id = i.proposal_id
    LEFT JOIN events_feed_grants g ON g.request_id = r.request_id
      AND g.slot_id = coalesce(i.slot_id, p.slot_id) AND g.resource_id = coalesce(i.resource_id, p.resource_id)`,
  ofOrganization: `INSERT INTO events_feed (commit_pos, prepare_pos, source_event_id, occurred_at, ordinal, type, organization_id)
    VALUES (${place}, $6::text, $7::uuid)`,
  sent: `INSERT INTO events_feed_requests (request_id, organization_id, phase) VALUES ($1, $2, 'pending')`,
  phase: `UPDATE events_feed_requests SET phase = $2 WHERE request_id = $1`,
  accepted: `UPDATE events_feed_requests SET phase = 'active', accepted_at = $2, retention_ms = $3 WHERE request_id = $1`,
  grant: `INSERT INTO events_feed_grants (request_id, slot_id, resource_id, entity_id, withdrawn) VALUES ($1, $2, $3, $4, false)
          ON CONFLICT (request_id, slot_id, resource_id) DO UPDATE SET entity_id = EXCLUDED.entity_id, withdrawn = false`,
  withdraw: `UPDATE events_feed_grants SET withdrawn = true WHERE request_id = $1 AND slot_id = $2`,
  proposal: `INSERT INTO events_feed_proposals (proposal_id, slot_id, resource_id) VALUES ($1, $2, $3)`,
};

/** What a feed event of a request names beside its type; absent is null. */
type Named = {
  readonly slotId?: string;
  readonly resourceId?: string;
  readonly adoptionId?: string;
  readonly proposalId?: string;
  readonly sourceVersion?: number;
  readonly orgVersion?: number;
};

const sourceOf = (e: Recorded<Read>) =>
  [e.position.commit.toString(), e.position.prepare.toString(), e.metadata.eventId, e.metadata.occurredAt] as const;
const placeOf = (e: Recorded<Read>, ordinal = 0) => [...sourceOf(e), ordinal] as const;

const ofRequest = (e: Recorded<Read>, type: FeedEventType, requestId: string, n: Named = {}): Statement => [
  sql.ofRequest,
  [
    ...placeOf(e),
    type,
    requestId,
    n.slotId ?? null,
    n.resourceId ?? null,
    n.adoptionId ?? null,
    n.proposalId ?? null,
    n.sourceVersion ?? null,
    n.orgVersion ?? null,
  ],
];

/** A request's move to another phase, and its feed event. */
const moved = (e: Recorded<Read>, type: FeedEventType, requestId: string, phase: string): Statement[] => [
  [sql.phase, [requestId, phase]],
  ofRequest(e, type, requestId),
];

/**
 * The statements of one event, in the order they must run: each reads the rows the ones before it,
 * and every event before it in the log, wrote.
 */
function statementsOf(e: Recorded<Read>): Statement[] {
  switch (e.type) {
    case 'RequestSent':
      return [[sql.sent, [e.data.requestId, e.data.organizationId]], ofRequest(e, 'request.sent', e.data.requestId)];
    case 'RequestAccepted':
      return [
        [sql.accepted, [e.data.requestId, e.data.acceptedAt, e.data.retentionMs]],
        ofRequest(e, 'request.accepted', e.data.requestId),
      ];
    case 'RequestRejected':
      return moved(e, 'request.rejected', e.data.requestId, 'rejected');
    case 'RequestCancelled':
      return moved(e, 'request.cancelled', e.data.requestId, 'cancelled');
    case 'RequestRevoked':
      return moved(e, 'request.revoked', e.data.requestId, 'revoked');
    case 'RequestSuspended':
      return moved(e, 'request.suspended', e.data.requestId, 'suspended');
    case 'RequestResumed':
      return moved(e, 'request.resumed', e.data.requestId, 'active');
    case 'SlotGranted': {
      const { requestId, slotId } = e.data;
      return e.data.records.flatMap(({ resourceId, entityId }, i): Statement[] => [
        [sql.granted, [...placeOf(e, i), requestId, slotId, resourceId, entityId]],
        [sql.grant, [requestId, slotId, resourceId, entityId]],
      ]);
    }
    case 'SlotWithdrawn':
      return [
        ofRequest(e, 'slot.withdrawn', e.data.requestId, { slotId: e.data.slotId }),
        [sql.withdraw, [e.data.requestId, e.data.slotId]],
      ];
    case 'ProposalOpened': {
      const d = e.data;
      return [
        [sql.proposal, [d.proposalId, d.slotId, d.resourceId]],
        ofRequest(e, 'proposal.opened', d.requestId, {
          slotId: d.slotId,
          resourceId: d.resourceId,
          proposalId: d.proposalId,
          sourceVersion: d.newVersion,
        }),
      ];
    }
    case 'ProposalClosed':
      return [ofRequest(e, 'proposal.closed', e.data.requestId, { proposalId: e.data.proposalId })];
    case 'AdoptionPended':
    case 'AdoptionDiscarded': {
      const d = e.data;
      return [
        ofRequest(e, e.type === 'AdoptionPended' ? 'copy.pending' : 'copy.discarded', d.requestId, {
          slotId: d.slotId,
          resourceId: d.sourceResourceId,
          adoptionId: d.adoptionId,
          sourceVersion: d.sourceVersion,
        }),
      ];
    }
    case 'CopyKept': {
      const d = e.data;
      return [
        ofRequest(e, 'copy.kept', d.requestId, {
          slotId: d.slotId,
          resourceId: d.sourceResourceId,
          adoptionId: d.adoptionId,
          sourceVersion: d.sourceVersion,
          orgVersion: d.orgVersion,
        }),
      ];
    }
    case 'CopyCorrected': {
      const d = e.data;
      const named = { slotId: d.slotId, resourceId: d.sourceResourceId, adoptionId: d.followsAdoptionId, orgVersion: d.orgVersion };
      return [ofRequest(e, 'copy.corrected', d.requestId, named)];
    }
    case 'CopyDeleted': {
      const d = e.data;
      return [ofRequest(e, 'copy.deleted', d.requestId, { slotId: d.slotId, resourceId: d.sourceResourceId, adoptionId: d.adoptionId })];
    }
    case 'KeyWarmed':
    case 'KeySealed':
      return [[sql.ofOrganization, [...placeOf(e), e.type === 'KeyWarmed' ? 'key.warmed' : 'key.sealed', e.data.organizationId]]];
    case 'DocumentUpdated':
    case 'FileVersionAdded':
      return [[sql.updated, [...sourceOf(e), e.data.resourceId, e.data.version]]];
    // Of no concern to an organization's feed, or personal (a member's address, a person's receipt), or the app's own doing.
    case 'ReceiptWritten':
    case 'AppAuthorized':
    case 'OrganizationCreated':
    case 'MemberSet':
    case 'MemberRemoved':
    case 'AppRegistered':
    case 'DocumentCreated':
    case 'DocumentDeleted':
    case 'FileUploaded':
      return [];
    default: {
      const unhandled: never = e;
      return unhandled;
    }
  }
}

/** The inserts a run gathers, each to its form for many rows (each array one of its parameters). */
const GATHERED: ReadonlyMap<string, string> = new Map([
  [sql.ofRequest, sql.ofRequests],
  [sql.updated, sql.updatedMany],
]);

/** The statements that write what the gathered inserts read (a request's phase, its grants, a proposal's record): none is passed. */
const WRITES_WHAT_GATHERED_READ: ReadonlySet<string> = new Set([sql.sent, sql.phase, sql.accepted, sql.grant, sql.withdraw, sql.proposal]);

/**
 * A run's statements with its inserts of feed rows gathered, one statement of each kind, until a
 * statement that writes what they read: the rows are the same, as each reads the phases, grants
 * and proposals the log gave it, and a run of copies, proposals or new versions costs the feed a
 * statement of each kind (a request's events, record.updated), not one an event.
 */
function gathered(statements: readonly Statement[]): Statement[] {
  const out: Statement[] = [];
  const held = new Map<string, (readonly unknown[])[]>();
  const release = () => {
    for (const [text, rows] of held) {
      out.push(
        rows.length === 1 ? [text, rows[0]!] : [GATHERED.get(text)!, rows[0]!.map((_, column) => rows.map((values) => values[column]))],
      );
    }
    held.clear();
  };
  for (const [text, values] of statements) {
    if (GATHERED.has(text)) {
      const rows = held.get(text);
      if (rows) rows.push(values);
      else held.set(text, [values]);
      continue;
    }
    if (WRITES_WHAT_GATHERED_READ.has(text)) release();
    out.push([text, values]);
  }
  release();
  return out;
}

const apply = async (tx: SqlExecutor, e: Recorded<Read>): Promise<void> => {
  for (const statement of statementsOf(e)) await tx.query(...statement);
};

const handlers = {
  RequestSent: apply,
  RequestAccepted: apply,
  RequestRejected: apply,
  RequestCancelled: apply,
  RequestRevoked: apply,
  RequestSuspended: apply,
  RequestResumed: apply,
  SlotGranted: apply,
  SlotWithdrawn: apply,
  ProposalOpened: apply,
  ProposalClosed: apply,
  AdoptionPended: apply,
  AdoptionDiscarded: apply,
  CopyKept: apply,
  CopyCorrected: apply,
  CopyDeleted: apply,
  KeyWarmed: apply,
  KeySealed: apply,
  DocumentUpdated: apply,
  FileVersionAdded: apply,
} satisfies TypedHandlers<Read>;

/**
 * The events feed (contract §12): the catalogue's events of each organization, from the log.
 * It follows the log (docs/decisions.md, "The events feed"): record.updated joins grants and phases
 * of requests with versions of resources, other streams, which only log order makes the same on
 * every run. Its set-based form is every event's statements in order, sent without waiting (each
 * needs its event's position, which an inline handler's statements may not read), the inserts of
 * feed rows gathered (gathered).
 */
export const eventsFeedProjector = projector({
  name: 'events_feed',
  version: 1,
  followsLog: true,
  schemaSql: readFileSync(new URL('./events-feed.sql', import.meta.url), 'utf8'),
  events: eitherOf(eitherOf(requestEvents, chainEvents), eitherOf(organizationEvents, resourceEvents)),
  on: handlers,
  setBased: { types: Object.keys(handlers) as (keyof typeof handlers)[], statements: (run) => gathered(run.flatMap(statementsOf)) },
});
