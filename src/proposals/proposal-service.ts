import { requestDecider, type RequestCommand } from '../commands/requests/request-decider.js';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import { deterministicUuid } from '../events/deterministic-id.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { CopyKeeping } from '../copies/keep-service.js';
import type { SlotAccess, SlotInView } from '../copies/slot-access.js';
import type { SchemaValidator } from '../schemas/index.js';
import type { Adoption } from '../copies/copy-view.js';
import type { SqlExecutor } from '../db/sql.js';
import type { Participant } from '../events/copy-events.js';
import type { EventContext, JsonValue } from '../events/envelope.js';
import { contentOf, readSourceVersion, type SourceDeps } from '../copies/source-version.js';
import { proposalWithdrawn, type UseProposal } from '../commands/proposals/use-proposal.js';
import { requestStream } from '../events/request-events.js';
import type { ProposalId, RequestId } from '../ids.js';
import { iso } from '../organizations/member.js';
import { grantOf, type RecordReader } from '../requests/request-records.js';
import type { RequestReads } from '../requests/request-reads.js';
import { withSlotGrants, type GrantRow, type RequestRow } from '../requests/request-queries.js';
import { slotsOf, stateOf } from '../requests/request-view.js';

export type ProposalDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly reads: RequestReads;
  readonly records: RecordReader;
  readonly access: SlotAccess;
  readonly keeping: Pick<CopyKeeping, 'keepProposed' | 'closeKept' | 'newestAdopted'>;
  /** Reads a version of the person's record in its vault key's context, for the candidate route. */
  readonly source: SourceDeps;
  /** Shows a built-in id by the current base's URL (contract §10.13). */
  readonly validator: Pick<SchemaValidator, 'canonicalRef'>;
  readonly now: () => Date;
};

/** The candidate route's answer (spec §4.3): the proposed version itself. */
export type Candidate = {
  readonly proposal: Proposal;
  readonly version: number;
  readonly name: string;
  readonly schemaRef: string | null;
  readonly data: JsonValue;
};

/** The request detail's proposal summary (spec §4.3). */
export type ProposalSummary = {
  readonly proposalId: string;
  readonly slotId: string;
  readonly resourceId: string;
  readonly newVersion: number;
  readonly proposedAt: string;
  readonly participant: Participant;
};

/** The proposals route's Proposal (spec §2.7): the summary with the slot's kind and target. */
export type Proposal = ProposalSummary & { readonly itemKind: string; readonly itemTarget: string };

type ProposalRow = {
  proposal_id: string;
  slot_id: string;
  resource_id: string;
  new_version: number;
  participant: unknown;
  proposed_at: Date | string;
  state: 'open' | 'closed';
};

/** A proposal with its request, and the grants of the proposal's slot. */
type Found = { readonly row: RequestRow; readonly proposal: ProposalRow; readonly grants: readonly GrantRow[] };

const proposalRows = `SELECT proposal_id::text AS proposal_id, slot_id::text AS slot_id, resource_id::text AS resource_id, new_version,
                        participant, proposed_at, state FROM rm.proposals`;

/** A request gathers a closed proposal for every version it was offered: the reads take the open ones, or one. */
const sql = {
  openOf: `${proposalRows} WHERE request_id = $1 AND state = 'open' ORDER BY proposed_at, proposal_id`,
  /**
   * The organization's ($1) request ($2) with its proposal ($3) and the grants of the proposal's
   * slot, the proposal's record's with its newest document (a candidate shows it, an adopt keeps it).
   */
  withRequest: withSlotGrants(
    '(SELECT slot_id FROM rm.proposals WHERE request_id = r.request_id AND proposal_id = $3)',
    `, (SELECT row_to_json(p) FROM (${proposalRows} WHERE request_id = r.request_id AND proposal_id = $3) p) AS proposal`,
    'g.resource_id = (SELECT resource_id FROM rm.proposals WHERE request_id = r.request_id AND proposal_id = $3)',
  ),
};

/** Update proposals (R-PROP-*): opened by the new-version reaction, decided by members. */
export class ProposalService {
  constructor(private readonly deps: ProposalDeps) {}

  /**
   * R-PROP-01, R-PROP-07: a new version of a resource granted on a manual keep slot of an active
   * connection, while the recipient may answer for its party, opens (or supersedes) a proposal.
   * An edit the recipient could not answer for raises nothing, now or later.
   */
  async notice(
    requestId: string,
    slotId: string,
    resourceId: string,
    version: number,
    cause: string,
    context: EventContext,
  ): Promise<void> {
    const owner = (
      await this.deps.readModels.query<{ organization_id: string }>(
        'SELECT organization_id::text AS organization_id FROM rm.requests WHERE request_id = $1',
        [requestId],
      )
    ).rows[0];
    const row = owner ? await this.deps.reads.oneOfOrganization(owner.organization_id, requestId) : null;
    const slot = row ? slotsOf(row).find((s) => s.slotId === slotId) : undefined;
    if (!row || !slot || slot.adoption !== 'manual' || !slot.verbs.includes('keep')) return;
    const grants = await this.deps.reads.grantsOfSlot(requestId, slotId);
    const standing = await this.deps.records.standing(row, grants);
    const record = this.deps.records
      .records(row, stateOf(row, this.deps.now()), slot, grants, standing)
      .find((r) => r.resourceId === resourceId);
    if (!record || record.status !== 'available') return;
    // A version already kept (or pended) needs no decision: the keep came first.
    if ((await this.deps.keeping.newestAdopted(requestId, slotId, resourceId)) >= version) return;
    const proposalId = deterministicUuid('proposal', `${cause}/${requestId}/${slotId}/${resourceId}`);
    const opened = await handle(
      this.deps,
      requestStream(requestId),
      requestDecider,
      {
        type: 'NoticeNewVersion',
        data: { now: this.deps.now(), proposalId, slotId, resourceId, newVersion: version, participant: record.participant },
      },
      { context },
    );
    if (isRefusal(opened)) throw new Error(`a proposal could not be noticed: ${opened.message}`);
    if (!opened.position) return;
    // R-KEEP-13: a keep of this version that looked for open proposals before this one was opened
    // did not see it (CopyKeeping.keptAnswer). Looking for the keep again, after opening,
    // closes the gap: each side reads after its own write, so one of the two sees the other.
    const keptSince = await this.deps.keeping.newestAdopted(requestId, slotId, resourceId, opened.position);
    if (keptSince < version) return;
    const closed = await this.deps.keeping.closeKept(requestId, slotId, resourceId, keptSince, context);
    if (closed) throw new Error(`a raced keep's proposal could not be closed: ${closed.message}`);
  }

  /** R-PROP-02: the open proposals, with the slot's kind and target. */
  async list(organizationId: string, requestId: RequestId): Promise<{ proposals: Proposal[] } | Refusal> {
    const row = await this.deps.reads.owned(organizationId, requestId);
    if (isRefusal(row)) return row;
    const slots = new Map(slotsOf(row).map((s) => [s.slotId, s]));
    const open = await this.openRows(row.request_id);
    return {
      proposals: open.map((p) => ({
        ...summaryOf(p),
        itemKind: slots.get(p.slot_id)?.kind ?? 'schema',
        itemTarget: slots.get(p.slot_id)?.target ?? '',
      })),
    };
  }

  /** The request detail's open proposals. */
  async summaries(requestId: string): Promise<ProposalSummary[]> {
    return (await this.openRows(requestId)).map(summaryOf);
  }

  /**
   * R-PROP-03, R-PROP-06: the proposed version, read from the person's vault, and a receipt of that
   * read on the person's side, attributed to the app the request came through; through the
   * consent gate (useProposal).
   */
  async candidate(
    organizationId: string,
    requestId: RequestId,
    proposalId: ProposalId,
    context: EventContext,
  ): Promise<Candidate | Refusal> {
    const found = await this.proposal(organizationId, requestId, proposalId);
    if (isRefusal(found)) return found;
    const { row, proposal } = found;
    const newest = grantOf(found.grants, proposal.slot_id, proposal.resource_id)?.document ?? null;
    const source = await readSourceVersion(this.deps.source, proposal.resource_id, proposal.new_version, null, newest);
    const receipt = {
      requestId: row.request_id,
      organizationId,
      recipientEmail: row.recipient_email,
      resourceId: proposal.resource_id,
      version: proposal.new_version,
      clientId: row.initiating_client_id,
      readAt: this.deps.now().toISOString(),
    };
    const used = await this.use(found, source !== null, receipt, context);
    if (isRefusal(used)) return used;
    // The gate let it through only on a version that resolved when read.
    if (!source) return proposalWithdrawn();
    return {
      proposal: { ...summaryOf(proposal), itemKind: used.slot.kind, itemTarget: used.slot.target },
      version: proposal.new_version,
      ...contentOf(source, (ref) => this.deps.validator.canonicalRef(ref)),
    };
  }

  /** R-PROP-05: closes an open proposal; `{dismissed: false}` when it was no longer open. */
  async dismiss(
    organizationId: string,
    requestId: RequestId,
    proposalId: ProposalId,
    context: EventContext,
  ): Promise<{ dismissed: boolean } | Refusal> {
    const found = await this.proposal(organizationId, requestId, proposalId);
    if (isRefusal(found)) return found;
    const done = await handle(
      this.deps,
      requestStream(found.row.request_id),
      requestDecider,
      { type: 'DecideProposal', data: { now: this.deps.now(), proposalId: found.proposal.proposal_id, decision: 'dismissed' } },
      { context },
    );
    if (isRefusal(done)) return done;
    return { dismissed: done.events.length > 0 };
  }

  /**
   * R-PROP-04, R-PROP-06: keeps the proposed version as the next version of the record's chain and
   * closes the proposal; through the consent gate (useProposal), and the keep's own.
   */
  async adopt(organizationId: string, requestId: RequestId, proposalId: ProposalId, context: EventContext): Promise<Adoption | Refusal> {
    const found = await this.proposal(organizationId, requestId, proposalId);
    if (isRefusal(found)) return found;
    const used = await this.use(found, true, null, context);
    if (isRefusal(used)) return used;
    const { proposal } = found;
    const kept = await this.deps.keeping.keepProposed(used, proposal.resource_id, proposal.new_version, context);
    if (isRefusal(kept)) return kept;
    const decided = await handle(
      this.deps,
      requestStream(found.row.request_id),
      requestDecider,
      { type: 'DecideProposal', data: { now: this.deps.now(), proposalId: proposal.proposal_id, decision: 'adopted' } },
      { context },
    );
    // Of two members adopting at once both keep the same version (once); only one decides.
    return isRefusal(decided) ? decided : kept;
  }

  /**
   * The use's decision (useProposal), on the gate's facts read now. A decision that withdraws the
   * proposal or leaves a receipt is appended to the request; one that lets an adopt through appends
   * nothing (the adopt's own decision closes the proposal). Answers the slot as read, for the keep.
   */
  private async use(
    found: Found,
    readable: boolean,
    receipt: UseProposal['receipt'],
    context: EventContext,
  ): Promise<SlotInView | Refusal> {
    const { row, proposal } = found;
    const view = await this.deps.access.viewOf(row, proposal.slot_id, found.grants);
    if (isRefusal(view)) return view;
    const facts = this.deps.records.factsFor(
      stateOf(row, this.deps.now()),
      view.grants,
      view.standing,
      proposal.slot_id,
      proposal.resource_id,
    );
    const use: RequestCommand = {
      type: 'UseProposal',
      data: {
        ...facts,
        resolves: facts.resolves && readable,
        now: this.deps.now(),
        requestId: row.request_id,
        proposalId: proposal.proposal_id,
        keyWarm: this.deps.access.warm(row),
        open: proposal.state === 'open',
        receipt,
      },
    };
    // The decision rests on the facts alone, not on the request's state: decided first, appended only when it writes.
    const decision = requestDecider.decide(requestDecider.initialState, use);
    if (isRefusal(decision)) return decision;
    if (decision.length === 0) return view;
    const done = await handle(this.deps, requestStream(row.request_id), requestDecider, use, { context });
    if (isRefusal(done)) return done;
    return done.events.some((e) => e.type === 'ProposalClosed') ? proposalWithdrawn() : view;
  }

  /** The request the organization owns and its proposal, with the grants of the proposal's slot (the gate's facts), in one query. */
  private async proposal(organizationId: string, requestId: RequestId, proposalId: ProposalId): Promise<Found | Refusal> {
    type Read = RequestRow & { proposal: ProposalRow | null; grants: GrantRow[] };
    const found = (await this.deps.readModels.query<Read>(sql.withRequest, [organizationId, requestId, proposalId])).rows[0];
    if (!found) return refuse('not_found', 'no such request');
    const { proposal, grants, ...row } = found;
    return proposal ? { row, proposal, grants } : refuse('not_found', 'no such proposal');
  }

  private async openRows(requestId: string): Promise<ProposalRow[]> {
    return (await this.deps.readModels.query<ProposalRow>(sql.openOf, [requestId])).rows;
  }
}

function summaryOf(p: ProposalRow): ProposalSummary {
  return {
    proposalId: p.proposal_id,
    slotId: p.slot_id,
    resourceId: p.resource_id,
    newVersion: p.new_version,
    proposedAt: iso(p.proposed_at),
    participant: (p.participant ?? null) as Participant,
  };
}
