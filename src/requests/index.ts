/** Requests and consent (R-REQ-*): both planes over one read model. */
import type { CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { Logger } from '../logger.js';
import type { Mailer } from '../mail/index.js';
import type { InvitationAllowance } from './invitation-allowance.js';
import { OrgRequests, type OrgRequestDeps } from './org-requests.js';
import { MemberAliases, ParticipantAliases } from './participant-alias.js';
import { PersonRequests, type OpenLimit } from './person-requests.js';
import { RecordReader } from './request-records.js';
import { RequestHistory } from './request-history.js';
import { RequestReads } from './request-reads.js';

export type { GrantInput } from './grant-check.js';
export { InvitationAllowance, type InvitationLimits } from './invitation-allowance.js';
export type { HistoryEntry } from './history-entry.js';
export type { Page, RequestDetail, SendInput } from './org-requests.js';
export type { StateChange } from './person-requests.js';
export type { PersonRequest, RequestSummary } from './request-view.js';
export { isRequestState, REQUEST_STATES, type RequestStateName } from './request-status.js';
export { OrgRequests, ParticipantAliases, PersonRequests };

export type RequestPlaneDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly mailer: Mailer;
  /** BASE_URL: invitation mails link to the request's page there (§11). */
  readonly baseUrl: string;
  /** Takes a slot for each invitation before it is written (INVITES_PER_*_PER_DAY). */
  readonly invitations: InvitationAllowance;
  /** The same for the requests a person opens (OPENS_PER_USER_PER_DAY). */
  readonly opens: OpenLimit;
  readonly logger: Logger;
  readonly now: () => Date;
  /** The alias key's root: the service vault's data key, so aliases survive restarts and rotations. */
  readonly aliasRootKey: Buffer;
  /** The request detail's adoptions and open proposals: the copies' and proposals' features answer them. */
  readonly adoptions: OrgRequestDeps['adoptions'];
  readonly proposals: OrgRequestDeps['proposals'];
  /** Contract §14: a request's signed consent receipts, which the person and the organization read alike. */
  readonly consentReceipts: OrgRequestDeps['consentReceipts'];
};

export type RequestPlane = {
  readonly org: OrgRequests;
  readonly person: PersonRequests;
  readonly history: RequestHistory;
  /** What the copies and proposals features read of the requests: the rows, and each record's standing (the consent gate's facts). */
  readonly reads: RequestReads;
  readonly records: RecordReader;
};

export function openRequestPlane(deps: RequestPlaneDeps): RequestPlane {
  const commands = { store: deps.store, waitFor: deps.waitFor };
  const reads = new RequestReads(deps.readModels);
  const history = new RequestHistory({
    store: deps.store,
    readModels: deps.readModels,
    memberAliases: new MemberAliases(deps.aliasRootKey),
  });
  const records = new RecordReader(deps.readModels, new ParticipantAliases(deps.aliasRootKey));
  return {
    history,
    reads,
    records,
    org: new OrgRequests({
      adoptions: deps.adoptions,
      proposals: deps.proposals,
      history,
      consentReceipts: deps.consentReceipts,
      ...commands,
      readModels: deps.readModels,
      reads,
      records,
      mailer: deps.mailer,
      baseUrl: deps.baseUrl,
      invitations: deps.invitations,
      logger: deps.logger,
      now: deps.now,
    }),
    person: new PersonRequests({
      ...commands,
      readModels: deps.readModels,
      reads,
      history,
      consentReceipts: deps.consentReceipts,
      now: deps.now,
      opens: deps.opens,
    }),
  };
}
