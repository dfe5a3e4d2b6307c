import { readFileSync } from 'node:fs';
import type { SqlExecutor } from '../../db/sql.js';
import { chainEvents, type ChainEvent } from '../../events/copy-events.js';
import { eitherOf, type Recorded } from '../../events/decoder.js';
import { organizationEvents, type OrganizationEvent } from '../../events/organization-events.js';
import { requestEvents, type RequestEvent } from '../../events/request-events.js';
import { resourceEvents, type ResourceEvent } from '../../events/resource-events.js';
import type { FeedEventType } from '../../events-feed/catalogue.js';
import { projector, type Statement, type TypedHandlers } from '../projector.js';
import { columnsOf, lastPerKey } from '../set-based.js';

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
  /**
   * A part of a run's feed rows of requests and organizations (RunPart), each array one column.
   * Each row reads the tables as they stood before the part; what the part changed before its
   * event, the row brings: the request's organization (organization_id set), the proposal's record
   * (slot_id and resource_id set), the grant's legal entity (entity_known), and for a slot.granted
   * row (check_grant) whether the record is still to be looked for among the slot's grants. Each
   * lookup is by key, as a scalar subquery or LATERAL with OFFSET 0, so a plan made while the
   * tables were small stays on their indexes.
   */
  rows: `INSERT INTO events_feed (${columns})
    SELECT x.commit_pos, x.prepare_pos, x.source_event_id, x.occurred_at, x.ordinal, x.type, x.organization_id, x.request_id,
           x.slot_id, x.resource_id,
           CASE WHEN x.entity_known THEN x.entity_id ELSE (
             SELECT g.entity_id FROM events_feed_grants g
             WHERE g.request_id = x.request_id AND g.slot_id = x.slot_id AND g.resource_id = x.resource_id) END,
           x.adoption_id, x.proposal_id, x.source_version, x.org_version
    FROM (
      SELECT i.commit_pos, i.prepare_pos, i.source_event_id, i.occurred_at, i.ordinal, i.type, i.request_id, i.adoption_id,
             i.proposal_id, i.source_version, i.org_version, i.entity_id, i.entity_known, i.check_grant,
             coalesce(i.organization_id, (SELECT r.organization_id FROM events_feed_requests r WHERE r.request_id = i.request_id))
               AS organization_id,
             coalesce(i.slot_id, p.slot_id) AS slot_id, coalesce(i.resource_id, p.resource_id) AS resource_id
      FROM unnest($1::numeric[], $2::numeric[], $3::uuid[], $4::timestamptz[], $5::integer[], $6::text[], $7::uuid[], $8::uuid[],
                  $9::uuid[], $10::uuid[], $11::uuid[], $12::uuid[], $13::integer[], $14::integer[], $15::uuid[], $16::boolean[],
                  $17::boolean[])
        AS i(commit_pos, prepare_pos, source_event_id, occurred_at, ordinal, type, organization_id, request_id, slot_id,
             resource_id, adoption_id, proposal_id, source_version, org_version, entity_id, entity_known, check_grant)
      LEFT JOIN LATERAL (
        SELECT p.slot_id, p.resource_id FROM events_feed_proposals p
        WHERE i.type = 'proposal.closed' AND i.slot_id IS NULL AND p.proposal_id = i.proposal_id
        OFFSET 0) p ON true
    ) x
    WHERE x.organization_id IS NOT NULL
      AND (NOT x.check_grant OR (
        SELECT a.withdrawn FROM events_feed_grants a
        WHERE a.request_id = x.request_id AND a.slot_id = x.slot_id AND a.resource_id = x.resource_id) IS NOT FALSE)`,
  ofOrganization: `INSERT INTO events_feed (commit_pos, prepare_pos, source_event_id, occurred_at, ordinal, type, organization_id)
    VALUES (${place}, $6::text, $7::uuid)`,
  sent: `INSERT INTO events_feed_requests (request_id, organization_id, phase) VALUES ($1, $2, 'pending')`,
  phase: `UPDATE events_feed_requests SET phase = $2 WHERE request_id = $1`,
  accepted: `UPDATE events_feed_requests SET phase = 'active', accepted_at = $2, retention_ms = $3 WHERE request_id = $1`,
  grant: `INSERT INTO events_feed_grants (request_id, slot_id, resource_id, entity_id, withdrawn) VALUES ($1, $2, $3, $4, false)
          ON CONFLICT (request_id, slot_id, resource_id) DO UPDATE SET entity_id = EXCLUDED.entity_id, withdrawn = false`,
  /** grant for many records at once (one row a record: the last grant of each). */
  grantMany: `INSERT INTO events_feed_grants (request_id, slot_id, resource_id, entity_id, withdrawn)
          SELECT request_id, slot_id, resource_id, entity_id, false FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[])
            AS i(request_id, slot_id, resource_id, entity_id)
          ON CONFLICT (request_id, slot_id, resource_id) DO UPDATE SET entity_id = EXCLUDED.entity_id, withdrawn = false`,
  withdraw: `UPDATE events_feed_grants SET withdrawn = true WHERE request_id = $1 AND slot_id = $2`,
  proposal: `INSERT INTO events_feed_proposals (proposal_id, slot_id, resource_id) VALUES ($1, $2, $3)`,
  proposalMany: `INSERT INTO events_feed_proposals (proposal_id, slot_id, resource_id)
              SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[])`,
  sentMany: `INSERT INTO events_feed_requests (request_id, organization_id, phase)
             SELECT request_id, organization_id, 'pending' FROM unnest($1::uuid[], $2::uuid[]) AS i(request_id, organization_id)`,
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

/** A source event's place in the log, its id and its time. */
type Source = readonly [commit: string, prepare: string, eventId: string, occurredAt: string];

/** The feed rows an event gives and the writes of the feed's own tables it makes, in the order they must run. */
type Op =
  | {
      readonly kind: 'request';
      readonly source: Source;
      readonly type: FeedEventType;
      readonly requestId: string;
      readonly named: Named;
    }
  | {
      readonly kind: 'granted';
      readonly source: Source;
      readonly ordinal: number;
      readonly requestId: string;
      readonly slotId: string;
      readonly resourceId: string;
      readonly entityId: string | null;
    }
  | { readonly kind: 'updated'; readonly source: Source; readonly resourceId: string; readonly version: number }
  | { readonly kind: 'organization'; readonly source: Source; readonly type: FeedEventType; readonly organizationId: string }
  | { readonly kind: 'sent'; readonly requestId: string; readonly organizationId: string }
  | { readonly kind: 'phase'; readonly requestId: string; readonly phase: string }
  | { readonly kind: 'accepted'; readonly requestId: string; readonly acceptedAt: string; readonly retentionMs: number }
  | {
      readonly kind: 'grant';
      readonly requestId: string;
      readonly slotId: string;
      readonly resourceId: string;
      readonly entityId: string | null;
    }
  | { readonly kind: 'withdraw'; readonly requestId: string; readonly slotId: string }
  | { readonly kind: 'proposal'; readonly proposalId: string; readonly slotId: string; readonly resourceId: string };

const sourceOf = (e: Recorded<Read>): Source => [
  e.position.commit.toString(),
  e.position.prepare.toString(),
  e.metadata.eventId,
  e.metadata.occurredAt,
];

/** What one event does to the feed; docs/events.md says which event gives which feed event. */
function opsOf(e: Recorded<Read>): Op[] {
  const source = sourceOf(e);
  const request = (type: FeedEventType, requestId: string, named: Named = {}): Op => ({ kind: 'request', source, type, requestId, named });
  const moved = (type: FeedEventType, requestId: string, phase: string): Op[] => [
    { kind: 'phase', requestId, phase },
    request(type, requestId),
  ];
  switch (e.type) {
    case 'RequestSent':
      return [
        { kind: 'sent', requestId: e.data.requestId, organizationId: e.data.organizationId },
        request('request.sent', e.data.requestId),
      ];
    case 'RequestAccepted': {
      const { requestId, acceptedAt, retentionMs } = e.data;
      return [{ kind: 'accepted', requestId, acceptedAt, retentionMs }, request('request.accepted', requestId)];
    }
    case 'RequestRejected':
      return moved('request.rejected', e.data.requestId, 'rejected');
    case 'RequestCancelled':
      return moved('request.cancelled', e.data.requestId, 'cancelled');
    case 'RequestRevoked':
      return moved('request.revoked', e.data.requestId, 'revoked');
    case 'RequestSuspended':
      return moved('request.suspended', e.data.requestId, 'suspended');
    case 'RequestResumed':
      return moved('request.resumed', e.data.requestId, 'active');
    case 'SlotGranted': {
      const { requestId, slotId } = e.data;
      return e.data.records.flatMap(({ resourceId, entityId }, ordinal): Op[] => [
        { kind: 'granted', source, ordinal, requestId, slotId, resourceId, entityId },
        { kind: 'grant', requestId, slotId, resourceId, entityId },
      ]);
    }
    case 'SlotWithdrawn':
      return [
        request('slot.withdrawn', e.data.requestId, { slotId: e.data.slotId }),
        { kind: 'withdraw', requestId: e.data.requestId, slotId: e.data.slotId },
      ];
    case 'ProposalOpened': {
      const d = e.data;
      return [
        { kind: 'proposal', proposalId: d.proposalId, slotId: d.slotId, resourceId: d.resourceId },
        request('proposal.opened', d.requestId, {
          slotId: d.slotId,
          resourceId: d.resourceId,
          proposalId: d.proposalId,
          sourceVersion: d.newVersion,
        }),
      ];
    }
    case 'ProposalClosed':
      return [request('proposal.closed', e.data.requestId, { proposalId: e.data.proposalId })];
    case 'AdoptionPended':
    case 'AdoptionDiscarded': {
      const d = e.data;
      return [
        request(e.type === 'AdoptionPended' ? 'copy.pending' : 'copy.discarded', d.requestId, {
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
        request('copy.kept', d.requestId, {
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
      return [request('copy.corrected', d.requestId, named)];
    }
    case 'CopyDeleted': {
      const d = e.data;
      return [request('copy.deleted', d.requestId, { slotId: d.slotId, resourceId: d.sourceResourceId, adoptionId: d.adoptionId })];
    }
    case 'KeyWarmed':
    case 'KeySealed':
      return [
        { kind: 'organization', source, type: e.type === 'KeyWarmed' ? 'key.warmed' : 'key.sealed', organizationId: e.data.organizationId },
      ];
    case 'DocumentUpdated':
    case 'FileVersionAdded':
      return [{ kind: 'updated', source, resourceId: e.data.resourceId, version: e.data.version }];
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

/** An op as one statement, for an event applied alone: each reads what the ones before it wrote. */
function statementOf(op: Op): Statement {
  switch (op.kind) {
    case 'request': {
      const n = op.named;
      const named = [n.slotId, n.resourceId, n.adoptionId, n.proposalId, n.sourceVersion, n.orgVersion].map((v) => v ?? null);
      return [sql.ofRequest, [...op.source, 0, op.type, op.requestId, ...named]];
    }
    case 'granted':
      return [sql.granted, [...op.source, op.ordinal, op.requestId, op.slotId, op.resourceId, op.entityId]];
    case 'updated':
      return [sql.updated, [...op.source, op.resourceId, op.version]];
    case 'organization':
      return [sql.ofOrganization, [...op.source, 0, op.type, op.organizationId]];
    case 'sent':
      return [sql.sent, [op.requestId, op.organizationId]];
    case 'phase':
      return [sql.phase, [op.requestId, op.phase]];
    case 'accepted':
      return [sql.accepted, [op.requestId, op.acceptedAt, op.retentionMs]];
    case 'grant':
      return [sql.grant, [op.requestId, op.slotId, op.resourceId, op.entityId]];
    case 'withdraw':
      return [sql.withdraw, [op.requestId, op.slotId]];
    case 'proposal':
      return [sql.proposal, [op.proposalId, op.slotId, op.resourceId]];
  }
}

/** A slot of a request, and a record granted on it, as the part's maps key them. */
const slotKey = (requestId: string, slotId: string): string => `${requestId}/${slotId}`;
const grantKey = (requestId: string, slotId: string, resourceId: string): string => `${slotKey(requestId, slotId)}/${resourceId}`;

type Write = Extract<Op, { readonly kind: 'sent' | 'phase' | 'accepted' | 'grant' | 'withdraw' | 'proposal' }>;

/**
 * The set-based form's part of a run (runStatements): its feed rows, each reading the feed's tables
 * as they stood before the part with what the part changed before its event brought along, then the
 * part's writes of those tables. The rows go as one insert of each kind; the writes by table
 * (tables apart commute), each run of one kind as one statement.
 */
class RunPart {
  private readonly rows: unknown[][] = [];
  private readonly updated: unknown[][] = [];
  private readonly writes: Write[] = [];
  /** What the part has written so far: requests sent and their organizations; proposals; grants, by request/slot/resource. */
  private readonly organizations = new Map<string, string>();
  private readonly proposals = new Map<string, { readonly slotId: string; readonly resourceId: string }>();
  private readonly grants = new Map<string, { readonly entityId: string | null; withdrawn: boolean }>();
  private readonly grantedRequests = new Set<string>();
  private readonly grantedResources = new Set<string>();
  /** Slots withdrawn (request/slot): every grant of one is withdrawn, whether the part or the table holds it. */
  private readonly withdrawnSlots = new Set<string>();
  private phasesMoved = false;

  /**
   * Whether `op` needs what the part cannot bring along: a new version's grants and request phases,
   * once the part changed any that may be among them; or a proposal's record read from the table,
   * once the part granted on its request (the grant's legal entity depends on the record).
   */
  needsTables(op: Op): boolean {
    if (op.kind === 'updated') return this.phasesMoved || this.withdrawnSlots.size > 0 || this.grantedResources.has(op.resourceId);
    if (op.kind !== 'request' || op.type !== 'proposal.closed') return false;
    return !this.proposals.has(op.named.proposalId!) && this.grantedRequests.has(op.requestId);
  }

  add(op: Op): void {
    switch (op.kind) {
      case 'request':
        return this.requestRow(op);
      case 'granted': {
        const grant = this.grants.get(grantKey(op.requestId, op.slotId, op.resourceId));
        // Granted still: nothing new. Withdrawn since, by the part: new again. Neither: the table says.
        if (grant && !grant.withdrawn) return;
        const known = grant !== undefined || this.withdrawnSlots.has(slotKey(op.requestId, op.slotId));
        const named = [op.slotId, op.resourceId, null, null, null, null];
        this.row(op.source, op.ordinal, 'slot.granted', op.requestId, named, {
          entityId: op.entityId,
          entityKnown: true,
          checkGrant: !known,
        });
        return;
      }
      case 'updated':
        this.updated.push([...op.source, op.resourceId, op.version]);
        return;
      case 'organization':
        this.row(op.source, 0, op.type, null, [null, null, null, null, null, null], {
          organizationId: op.organizationId,
          entityId: null,
          entityKnown: true,
        });
        return;
      case 'sent':
        this.organizations.set(op.requestId, op.organizationId);
        break;
      case 'phase':
      case 'accepted':
        this.phasesMoved = true;
        break;
      case 'grant':
        this.grants.set(grantKey(op.requestId, op.slotId, op.resourceId), { entityId: op.entityId, withdrawn: false });
        this.grantedRequests.add(op.requestId);
        this.grantedResources.add(op.resourceId);
        break;
      case 'withdraw': {
        const slot = slotKey(op.requestId, op.slotId);
        this.withdrawnSlots.add(slot);
        for (const [key, grant] of this.grants) if (key.startsWith(`${slot}/`)) grant.withdrawn = true;
        break;
      }
      case 'proposal':
        this.proposals.set(op.proposalId, { slotId: op.slotId, resourceId: op.resourceId });
        break;
    }
    this.writes.push(op);
  }

  statements(): Statement[] {
    const out: Statement[] = [];
    if (this.rows.length > 0) out.push([sql.rows, columnsOf(this.rows)]);
    if (this.updated.length === 1) out.push([sql.updated, this.updated[0]!]);
    else if (this.updated.length > 1) out.push([sql.updatedMany, columnsOf(this.updated)]);
    const tables: readonly (readonly Write['kind'][])[] = [['sent', 'phase', 'accepted'], ['grant', 'withdraw'], ['proposal']];
    for (const kinds of tables) out.push(...writesOf(this.writes.filter((w) => kinds.includes(w.kind))));
    return out;
  }

  /** A request's feed row: its organization, proposal's record and grant's entity from the part where it wrote them. */
  private requestRow(op: Extract<Op, { readonly kind: 'request' }>): void {
    const n = op.named;
    const proposal = op.type === 'proposal.closed' ? this.proposals.get(n.proposalId!) : undefined;
    const slotId = n.slotId ?? proposal?.slotId ?? null;
    const resourceId = n.resourceId ?? proposal?.resourceId ?? null;
    const grant = slotId && resourceId ? this.grants.get(grantKey(op.requestId, slotId, resourceId)) : undefined;
    // Known where the part granted the record, or where no record is named (no grant matches); a
    // proposal the part did not open names its record from the table.
    const fromTable = op.type === 'proposal.closed' && proposal === undefined;
    const entityKnown = grant !== undefined || (!fromTable && (slotId === null || resourceId === null));
    const named = [slotId, resourceId, n.adoptionId ?? null, n.proposalId ?? null, n.sourceVersion ?? null, n.orgVersion ?? null];
    this.row(op.source, 0, op.type, op.requestId, named, { entityId: grant?.entityId ?? null, entityKnown });
  }

  /** A row of sql.rows; its organization, where not given, the request's (from the part, else the table). */
  private row(
    source: Source,
    ordinal: number,
    type: FeedEventType,
    requestId: string | null,
    named: readonly unknown[],
    more: { organizationId?: string; entityId: string | null; entityKnown: boolean; checkGrant?: boolean },
  ): void {
    const organizationId = more.organizationId ?? (requestId === null ? null : (this.organizations.get(requestId) ?? null));
    this.rows.push([
      ...source,
      ordinal,
      type,
      organizationId,
      requestId,
      ...named,
      more.entityId,
      more.entityKnown,
      more.checkGrant ?? false,
    ]);
  }
}

/** A table's writes of a part, in order, each run of one kind as one statement. */
function writesOf(writes: readonly Write[]): Statement[] {
  const out: Statement[] = [];
  for (let i = 0; i < writes.length;) {
    let j = i + 1;
    while (j < writes.length && writes[j]!.kind === writes[i]!.kind) j++;
    out.push(...kindRun(writes.slice(i, j)));
    i = j;
  }
  return out;
}

/** The statements that write a run of sent, grant or proposal at once; the others go one by one. */
const MANY: Partial<Record<Write['kind'], string>> = { sent: sql.sentMany, grant: sql.grantMany, proposal: sql.proposalMany };

/** Writes of one kind, in order, as one statement where the kind has one (a record granted twice: its last grant). */
function kindRun(run: readonly Write[]): Statement[] {
  const many = MANY[run[0]!.kind];
  if (run.length === 1 || many === undefined) return run.map(statementOf);
  // One upsert may not touch a row twice: of a record's grants, the last.
  const rows =
    run[0]!.kind === 'grant' ? lastPerKey(run, (w) => (w.kind === 'grant' ? grantKey(w.requestId, w.slotId, w.resourceId) : '')) : run;
  return [[many, columnsOf(rows.map((w) => statementOf(w)[1]))]];
}

/**
 * The set-based form: a run cut into parts, each as RunPart writes it. A part ends before an op
 * that needs the tables as the part left them, so every row reads the feed's state as the log
 * stood at its event; a run of copies, proposals, grants or new versions costs the feed a few
 * statements, not one or two an event.
 */
function runStatements(ops: readonly Op[]): Statement[] {
  const out: Statement[] = [];
  let part = new RunPart();
  for (const op of ops) {
    if (part.needsTables(op)) {
      out.push(...part.statements());
      part = new RunPart();
    }
    part.add(op);
  }
  return [...out, ...part.statements()];
}

const apply = async (tx: SqlExecutor, e: Recorded<Read>): Promise<void> => {
  for (const op of opsOf(e)) await tx.query(...statementOf(op));
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
 * every run. Its set-based form (runStatements) writes a run's feed rows before the run's writes of
 * the feed's own tables, each row bringing what the run changed before its event, in a few
 * statements sent without waiting (each needs its event's position, which an inline handler's
 * statements may not read).
 */
export const eventsFeedProjector = projector({
  name: 'events_feed',
  version: 2,
  followsLog: true,
  // Every lookup of its set-based form goes by key (test/projections/events-feed.test.ts checks the generic plans).
  genericPlans: true,
  schemaSql: readFileSync(new URL('./events-feed.sql', import.meta.url), 'utf8'),
  events: eitherOf(eitherOf(requestEvents, chainEvents), eitherOf(organizationEvents, resourceEvents)),
  on: handlers,
  setBased: { types: Object.keys(handlers) as (keyof typeof handlers)[], statements: (run) => runStatements(run.flatMap(opsOf)) },
});
