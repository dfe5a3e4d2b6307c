import type { ConsentReceipts } from '../consent-receipts/consent-receipts.js';
import { randomUUID } from 'node:crypto';
import type { Caller } from '../identity/identity-service.js';
import type { Id, RequestId, SlotId } from '../ids.js';
import { requestDecider, type RequestCommand } from '../commands/requests/request-decider.js';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EventContext } from '../events/envelope.js';
import { requestStream } from '../events/request-events.js';
import type { HistoryEntry } from './history-entry.js';
import type { RequestHistory } from './request-history.js';
import { checkGrant, type CheckedGrant, type GrantInput } from './grant-check.js';
import { requestSql as q, type RequestRow } from './request-queries.js';
import type { RequestReads } from './request-reads.js';
import { personRequestOf, slotsOf, type PersonRequest } from './request-view.js';
import { sendWithin } from './send-within.js';
import { retentionMs } from '../manifests/retention.js';
import { iso } from '../organizations/member.js';
import { DAY_MS, type Allowance } from '../limits/allowance.js';

export type Receipt = {
  readonly resourceId: string;
  readonly version: number;
  readonly organizationId: string;
  readonly clientId: string | null;
  readonly readAt: string;
};

export type PersonRequestDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly reads: RequestReads;
  readonly history: RequestHistory;
  /** Contract §14: a request's signed consent receipts, oldest first. */
  readonly consentReceipts: (requestId: string) => Promise<ConsentReceipts>;
  readonly now: () => Date;
  /** R-LIM-16: the requests one person may open a day (OPENS_PER_USER_PER_DAY), each taking a slot before it is written. */
  readonly opens: OpenLimit;
};

export type OpenLimit = { readonly allowance: Allowance; readonly perDay: number };

export type StateChange = 'reject' | 'revoke' | 'suspend' | 'resume';
const transitions = {
  reject: 'RejectRequest',
  revoke: 'RevokeRequest',
  suspend: 'SuspendRequest',
  resume: 'ResumeRequest',
} as const satisfies Record<StateChange, RequestCommand['type']>;

const noSuchRequest = () => refuse('not_found', 'no such request');

/** RequestMutation and UserQuery.requests (R-REQ-20 to R-REQ-26): a person acts only on requests addressed to their login email. */
export class PersonRequests {
  constructor(private readonly deps: PersonRequestDeps) {}

  /** R-PROP-03: every candidate read of the caller's records, oldest first. */
  async receipts(caller: Caller): Promise<Receipt[]> {
    const rows = (
      await this.deps.readModels.query<{
        resource_id: string;
        version: number;
        organization_id: string;
        client_id: string | null;
        read_at: Date | string;
      }>(
        `SELECT resource_id::text AS resource_id, version, organization_id::text AS organization_id, client_id, read_at
         FROM rm.receipts WHERE recipient_email = $1 ORDER BY read_at, event_id`,
        [caller.email],
      )
    ).rows;
    return rows.map((r) => ({
      resourceId: r.resource_id,
      version: r.version,
      organizationId: r.organization_id,
      clientId: r.client_id,
      readAt: iso(r.read_at),
    }));
  }

  /** Contract §14: the consent receipts of the person's own request, the same the organization gets. */
  async consentReceipts(caller: Caller, requestId: RequestId): Promise<ConsentReceipts | Refusal> {
    const row = await this.own(caller, requestId);
    return isRefusal(row) ? row : this.deps.consentReceipts(row.request_id);
  }

  /** R-HIST-01, R-HIST-03: the person sees the history of their own request, its members by pseudonym. */
  async history(caller: Caller, requestId: RequestId): Promise<HistoryEntry[] | Refusal> {
    const row = await this.own(caller, requestId);
    return isRefusal(row) ? row : this.deps.history.forPerson(row.request_id, row.organization_id);
  }

  async mine(caller: Caller): Promise<PersonRequest[]> {
    const rows = await this.deps.reads.ofRecipient(caller.email);
    const grants = await this.deps.reads.grants(rows.map((r) => r.request_id));
    const now = this.deps.now();
    return rows.map((row) =>
      personRequestOf(
        row,
        grants.filter((g) => g.request_id === row.request_id),
        now,
      ),
    );
  }

  /** The hosted flow: the person starts a request from the organization's app; accepting is a separate step. */
  async open(caller: Caller, client: Id<'app'>, id: Id<'manifest'>, context: EventContext): Promise<PersonRequest | Refusal> {
    const head = (await this.deps.readModels.query<{ organization_id: string; latest_version: number }>(q.manifestHead, [id])).rows[0];
    if (!head) return refuse('not_found', 'no such manifest');
    if ((await this.deps.readModels.query(q.appOf, [client, head.organization_id])).rowCount === 0) {
      return refuse('not_found', "no such app of the manifest's organization");
    }
    const requestId = randomUUID();
    // R-LIM-16 (contract §10.9): a slot of the person's day before anything is written.
    const { allowance, perDay } = this.deps.opens;
    const opening = {
      bucket: `open-person:${caller.identityId}`,
      max: perDay,
      windowMs: DAY_MS,
      message: 'you have opened too many requests today; try again later',
    };
    const slots = { reserve: () => allowance.reserve([opening], requestId), release: () => allowance.release(requestId) };
    const refused = await sendWithin(
      this.deps,
      slots,
      {
        requestId,
        organizationId: head.organization_id,
        manifestId: id,
        manifestVersion: head.latest_version,
        recipientEmail: caller.email,
        invitationExpiresAt: null,
        initiatedBy: 'recipient',
        initiatingClientId: client,
        now: this.deps.now(),
      },
      context,
    );
    if (refused) return refused;
    return this.view(caller, requestId);
  }

  async accept(
    caller: Caller,
    requestId: RequestId,
    grants: readonly GrantInput[],
    context: EventContext,
  ): Promise<PersonRequest | Refusal> {
    const row = await this.own(caller, requestId);
    if (isRefusal(row)) return row;
    // The decider weighs a refused grant only after the request's state (R-REQ-20).
    const checked = await this.check(caller, row, grants);
    const requiredSlots = slotsOf(row)
      .filter((slot) => slot.required)
      .map(({ slotId, label }) => ({ slotId, label }));
    const data = {
      now: this.deps.now(),
      retention: row.retention,
      retentionMs: retentionMs(row.retention),
      grants: checked,
      requiredSlots,
    };
    return this.run(caller, row, { type: 'AcceptRequest', data }, context);
  }

  async grant(caller: Caller, requestId: RequestId, grant: GrantInput, context: EventContext): Promise<PersonRequest | Refusal> {
    const row = await this.own(caller, requestId);
    if (isRefusal(row)) return row;
    const checked = await checkGrant(this.deps.readModels, caller, slotsOf(row), grant);
    if (isRefusal(checked)) return checked;
    return this.run(caller, row, { type: 'GrantSlot', data: { now: this.deps.now(), ...checked } }, context);
  }

  async withdraw(caller: Caller, requestId: RequestId, slotId: SlotId, context: EventContext): Promise<PersonRequest | Refusal> {
    const row = await this.own(caller, requestId);
    if (isRefusal(row)) return row;
    const slot = slotsOf(row).find((s) => s.slotId === slotId);
    if (!slot) return refuse('not_found', `no slot ${slotId} in the manifest version this request pins`);
    return this.run(caller, row, { type: 'WithdrawSlot', data: { now: this.deps.now(), slotId: slot.slotId } }, context);
  }

  async change(caller: Caller, requestId: RequestId, change: StateChange, context: EventContext): Promise<PersonRequest | Refusal> {
    const row = await this.own(caller, requestId);
    if (isRefusal(row)) return row;
    return this.run(caller, row, { type: transitions[change], data: { now: this.deps.now() } }, context);
  }

  /** Contract §13: the person gives their request to the organization's app on the hosted consent page. */
  async authorizeApp(caller: Caller, requestId: RequestId, clientId: string, context: EventContext): Promise<PersonRequest | Refusal> {
    const row = await this.own(caller, requestId);
    if (isRefusal(row)) return row;
    return this.run(caller, row, { type: 'AuthorizeApp', data: { clientId, now: this.deps.now() } }, context);
  }

  private async run(caller: Caller, row: RequestRow, command: RequestCommand, context: EventContext) {
    const done = await handle(this.deps, requestStream(row.request_id), requestDecider, command, { context });
    return isRefusal(done) ? done : this.view(caller, row.request_id);
  }

  /** Someone else's request answers exactly as an unknown one. */
  private async own(caller: Caller, requestId: RequestId): Promise<RequestRow | Refusal> {
    return (await this.deps.reads.oneOfRecipient(caller.email, requestId)) ?? noSuchRequest();
  }

  private async view(caller: Caller, requestId: string): Promise<PersonRequest | Refusal> {
    const row = await this.deps.reads.oneOfRecipient(caller.email, requestId);
    if (!row) return noSuchRequest();
    return personRequestOf(row, await this.deps.reads.grants([requestId]), this.deps.now());
  }

  /** Several entries for one slot are one answer: their resources together. */
  private async check(caller: Caller, row: RequestRow, grants: readonly GrantInput[]): Promise<CheckedGrant[] | Refusal> {
    const bySlot = new Map<string, GrantInput>();
    for (const g of grants) {
      const key = g.slotId.id ?? g.slotId.sent;
      bySlot.set(key, { slotId: g.slotId, resourceIds: [...(bySlot.get(key)?.resourceIds ?? []), ...g.resourceIds] });
    }
    const checked: CheckedGrant[] = [];
    for (const grant of bySlot.values()) {
      const one = await checkGrant(this.deps.readModels, caller, slotsOf(row), grant);
      if (isRefusal(one)) return one;
      checked.push(one);
    }
    return checked;
  }
}
