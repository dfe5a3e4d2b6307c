import type { ConsentReceipts } from '../consent-receipts/consent-receipts.js';
import { randomUUID } from 'node:crypto';
import { requestDecider } from '../commands/requests/request-decider.js';
import { normalizeEmail } from '../identity/email.js';
import { isUuid, type Id, type RequestId } from '../ids.js';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EventContext } from '../events/envelope.js';
import { positionFrom } from '../events/position.js';
import { requestStream } from '../events/request-events.js';
import type { Adoption } from '../copies/copy-view.js';
import type { ProposalSummary } from '../proposals/proposal-service.js';
import type { Logger } from '../logger.js';
import { MailUnavailableError, type Mailer } from '../mail/index.js';
import type { Member } from '../organizations/index.js';
import type { InvitationAllowance } from './invitation-allowance.js';
import { invitationMail } from './invitation-mail.js';
import { sendWithin } from './send-within.js';
import { requestSql as q } from './request-queries.js';
import type { HistoryEntry } from './history-entry.js';
import type { RequestHistory } from './request-history.js';
import type { RequestReads } from './request-reads.js';
import type { RecordReader, RecordEntry } from './request-records.js';
import type { RequestStateName } from './request-status.js';
import { slotFields, slotsOf, stateOf, summaryOf, type RequestSummary } from './request-view.js';

export type SendInput = {
  /** Parsed at the edge: null when it is no UUID, so it names no manifest. */
  readonly manifestId: Id<'manifest'> | null;
  readonly recipientEmail: string;
  readonly invitationExpiresAt: string | null;
};

export type RequestDetail = {
  readonly request: RequestSummary;
  readonly manifestName: string;
  readonly items: ReadonlyArray<ReturnType<typeof slotFields> & { readonly records: readonly RecordEntry[] }>;
  readonly adoptions: readonly Adoption[];
  readonly proposals: readonly ProposalSummary[];
};

export type OrgRequestDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly reads: RequestReads;
  readonly records: RecordReader;
  readonly mailer: Mailer;
  /** BASE_URL: invitation mails link to the request's page there (§11). */
  readonly baseUrl: string;
  readonly invitations: InvitationAllowance;
  /** The request's adoptions, pending ones too (R-KEEP-12). */
  readonly adoptions: (requestId: string) => Promise<Adoption[]>;
  /** The request's open proposals (R-PROP-02). */
  readonly proposals: (requestId: string) => Promise<ProposalSummary[]>;
  readonly history: RequestHistory;
  readonly logger: Logger;
  readonly now: () => Date;
  /** Contract §14: a request's signed consent receipts, oldest first. */
  readonly consentReceipts: (requestId: string) => Promise<ConsentReceipts>;
};

const noSuchRequest = () => refuse('not_found', 'no such request');

/** How many entries a page holds, and the opaque cursor (or history position) of the previous page's end. */
export type Page = { readonly limit: number; readonly from: string | null };

/** A list cursor, opaque to the client: the id of the page's last request. */
const cursorOf = (requestId: string) => Buffer.from(requestId, 'utf8').toString('base64url');

function requestIdOf(cursor: string): string | null {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  return isUuid(id) && cursorOf(id) === cursor ? id : null;
}

/** R-REQ-01 to R-REQ-09: the organization's side of its requests; another organization's id is not found. */
export class OrgRequests {
  constructor(private readonly deps: OrgRequestDeps) {}

  async send(member: Member, input: SendInput, context: EventContext): Promise<RequestSummary | Refusal> {
    const recipientEmail = normalizeEmail(input.recipientEmail);
    if (isRefusal(recipientEmail)) return recipientEmail;
    const manifestId = input.manifestId;
    if (manifestId === null) return refuse('not_found', 'no such manifest');
    const head = (await this.deps.readModels.query<{ organization_id: string; latest_version: number }>(q.manifestHead, [manifestId]))
      .rows[0];
    if (!head || head.organization_id !== member.organizationId) return refuse('not_found', 'no such manifest');
    const requestId = randomUUID();
    const slots = {
      reserve: () => this.deps.invitations.reserve(member, recipientEmail, requestId),
      release: () => this.deps.invitations.release(requestId),
    };
    const refused = await sendWithin(
      this.deps,
      slots,
      {
        requestId,
        organizationId: member.organizationId,
        manifestId,
        manifestVersion: head.latest_version,
        recipientEmail,
        invitationExpiresAt: input.invitationExpiresAt,
        initiatedBy: 'org',
        initiatingClientId: null,
        now: this.deps.now(),
      },
      context,
    );
    if (refused) return refused;
    const row = await this.deps.reads.oneOfOrganization(member.organizationId, requestId);
    if (!row) throw new Error('a sent request is missing from the read model');
    await this.invite(recipientEmail, row.organization_name, row.manifest_name, `${this.deps.baseUrl}/requests/${requestId}`);
    return summaryOf(row, this.deps.now());
  }

  async cancel(organizationId: string, requestId: RequestId, context: EventContext): Promise<RequestSummary | Refusal> {
    const owned = await this.deps.reads.owned(organizationId, requestId);
    if (isRefusal(owned)) return owned;
    const done = await handle(
      this.deps,
      requestStream(owned.request_id),
      requestDecider,
      { type: 'CancelRequest', data: { now: this.deps.now() } },
      { context },
    );
    if (isRefusal(done)) return done;
    const row = await this.deps.reads.oneOfOrganization(organizationId, owned.request_id);
    return row ? summaryOf(row, this.deps.now()) : noSuchRequest();
  }

  /**
   * R-REQ-06, R-REQ-32, §10.6: a page of the organization's requests, newest first, to `email` and in
   * one of `states` when given, and the cursor of the next (null on the last).
   */
  async list(
    organizationId: string,
    { email, states }: { readonly email: string | null; readonly states: readonly RequestStateName[] | null },
    page: Page,
  ): Promise<{ requests: RequestSummary[]; nextCursor: string | null } | Refusal> {
    const normalized = email === null ? null : normalizeEmail(email);
    if (isRefusal(normalized)) return normalized;
    const after = page.from === null ? null : requestIdOf(page.from);
    if (page.from !== null && after === null) return refuse('invalid_request', 'cursor is not one a page of this list gave');
    // One clock for the filter and the summaries, so every request answered is in a state asked for.
    const now = this.deps.now();
    const rows = await this.deps.reads.ofOrganization(organizationId, { email: normalized, states, now }, after, page.limit + 1);
    const shown = rows.slice(0, page.limit);
    return {
      requests: shown.map((row) => summaryOf(row, now)),
      nextCursor: rows.length > page.limit ? cursorOf(shown.at(-1)!.request_id) : null,
    };
  }

  /** R-HIST-01, §10.6: a page of the request's audit history, oldest first, after the position `page.from` names. */
  /** Contract §14: every consent receipt of the organization's request, oldest first; another's request is not found. */
  async consentReceipts(organizationId: string, requestId: RequestId): Promise<ConsentReceipts | Refusal> {
    const owned = await this.deps.reads.owned(organizationId, requestId);
    return isRefusal(owned) ? owned : this.deps.consentReceipts(requestId);
  }

  async history(
    organizationId: string,
    requestId: RequestId,
    page: Page,
  ): Promise<{ history: HistoryEntry[]; nextAfter: string | null } | Refusal> {
    const owned = await this.deps.reads.owned(organizationId, requestId);
    if (isRefusal(owned)) return owned;
    const after = page.from === null ? null : positionFrom(page.from);
    if (page.from !== null && after === null) return refuse('invalid_request', 'after is not the position of a history entry');
    return this.deps.history.page(owned.request_id, after, page.limit);
  }

  async detail(organizationId: string, requestId: RequestId): Promise<RequestDetail | null> {
    const row = await this.deps.reads.owned(organizationId, requestId);
    if (isRefusal(row)) return null;
    const now = this.deps.now();
    const state = stateOf(row, now);
    const grants = await this.deps.reads.grants([row.request_id]);
    const standing = await this.deps.records.standing(row, grants);
    const items = slotsOf(row).map((slot) => {
      const granted = grants.filter((g) => g.slot_id === slot.slotId);
      return { ...slotFields(slot, granted), records: this.deps.records.records(row, state, slot, granted, standing) };
    });
    const adoptions = await this.deps.adoptions(row.request_id);
    const proposals = await this.deps.proposals(row.request_id);
    return { request: summaryOf(row, now), manifestName: row.manifest_name, items, adoptions, proposals };
  }

  /**
   * The request stands whether or not the mail goes out: the recipient also finds it under their
   * requests, and failing the send would leave a request the organization cannot see it made.
   */
  private async invite(to: string, organizationName: string, manifestName: string, page: string): Promise<void> {
    try {
      await this.deps.mailer.send(invitationMail(to, organizationName, manifestName, page));
    } catch (e) {
      if (!(e instanceof MailUnavailableError)) throw e;
      this.deps.logger.warn({ reason: e.reason }, 'invitation mail could not be handed over');
    }
  }
}
