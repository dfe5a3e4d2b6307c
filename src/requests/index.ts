/** Requests and consent (R-REQ-*): both planes over one read model. */
import type { CommandDeps } from '../commands/shell.js';
import { CopyDeletion } from '../copies/copy-deletion.js';
import { CopyService, type CopyDeps } from '../copies/copy-service.js';
import { ProposalService } from '../proposals/proposal-service.js';
import type { SqlExecutor } from '../db/sql.js';
import type { Logger } from '../logger.js';
import type { Mailer } from '../mail/index.js';
import type { InvitationAllowance } from './invitation-allowance.js';
import { OrgRequests } from './org-requests.js';
import { ParticipantAliases } from './participant-alias.js';
import { PersonRequests } from './person-requests.js';
import { RecordReader } from './request-records.js';
import { RequestHistory } from './request-history.js';
import { RequestReads } from './request-reads.js';

export type { GrantInput } from './grant-check.js';
export { InvitationAllowance, type InvitationLimits } from './invitation-allowance.js';
export type { HistoryEntry } from './history-entry.js';
export type { RequestDetail, SendInput } from './org-requests.js';
export type { StateChange } from './person-requests.js';
export type { PersonRequest, RequestSummary } from './request-view.js';
export { OrgRequests, ParticipantAliases, PersonRequests };

export type RequestPlaneDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly mailer: Mailer;
  /** Takes a slot for each invitation before it is written (INVITES_PER_*_PER_DAY). */
  readonly invitations: InvitationAllowance;
  readonly logger: Logger;
  readonly now: () => Date;
  /** The alias key's root: the service vault's data key, so aliases survive restarts and rotations. */
  readonly aliasRootKey: Buffer;
  /** What keeping copies needs beyond the requests: keys, blobs, the validator and key warmth. */
  readonly copies: Pick<CopyDeps, 'keyring' | 'blobs' | 'validator' | 'keyStateOf' | 'maxBytes'>;
};

export type RequestPlane = {
  readonly org: OrgRequests;
  readonly person: PersonRequests;
  readonly copies: CopyService;
  readonly deletion: CopyDeletion;
  readonly proposals: ProposalService;
  readonly history: RequestHistory;
};

export function openRequestPlane(deps: RequestPlaneDeps): RequestPlane {
  const commands = { store: deps.store, waitFor: deps.waitFor };
  const reads = new RequestReads(deps.readModels);
  const history = new RequestHistory({ store: deps.store, readModels: deps.readModels });
  const records = new RecordReader(deps.readModels, new ParticipantAliases(deps.aliasRootKey));
  const copies = new CopyService({ ...commands, ...deps.copies, readModels: deps.readModels, reads, records, now: deps.now });
  const proposals = new ProposalService({
    ...commands,
    readModels: deps.readModels,
    reads,
    records,
    copies,
    keyStateOf: deps.copies.keyStateOf,
    source: { store: deps.store, keyring: deps.copies.keyring, blobs: deps.copies.blobs },
    now: deps.now,
  });
  const deletion = new CopyDeletion({
    ...commands,
    readModels: deps.readModels,
    reads,
    keyring: deps.copies.keyring,
    blobs: deps.copies.blobs,
    now: deps.now,
  });
  return {
    copies,
    deletion,
    proposals,
    history,
    org: new OrgRequests({
      adoptions: (requestId) => copies.adoptionsOf(requestId),
      proposals: (requestId) => proposals.summaries(requestId),
      history,
      ...commands,
      readModels: deps.readModels,
      reads,
      records,
      mailer: deps.mailer,
      invitations: deps.invitations,
      logger: deps.logger,
      now: deps.now,
    }),
    person: new PersonRequests({ ...commands, readModels: deps.readModels, reads, history, now: deps.now }),
  };
}
