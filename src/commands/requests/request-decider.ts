import { deciderOf, type CommandOf } from '../decider.js';
import { closeKeptProposals, decideProposal } from '../proposals/close-proposal.js';
import { noticeNewVersion } from '../proposals/notice-new-version.js';
import { useProposal } from '../proposals/use-proposal.js';
import { acceptRequest } from './accept-request.js';
import { authorizeApp } from './authorize-app.js';
import { cancelRequest } from './cancel-request.js';
import { discardLapsed } from './discard-adoption.js';
import { grantSlot } from './grant-slot.js';
import { pendAdoption } from './pend-adoption.js';
import { readRecord } from './read-record.js';
import { rejectRequest } from './reject-request.js';
import { evolveRequest, noRequest } from './request-state.js';
import { resumeRequest } from './resume-request.js';
import { revokeRequest } from './revoke-request.js';
import { sendRequest } from './send-request.js';
import { suspendRequest } from './suspend-request.js';
import { withdrawSlot } from './withdraw-slot.js';

const requestDecisions = {
  SendRequest: sendRequest,
  CancelRequest: cancelRequest,
  AcceptRequest: acceptRequest,
  RejectRequest: rejectRequest,
  GrantSlot: grantSlot,
  WithdrawSlot: withdrawSlot,
  SuspendRequest: suspendRequest,
  ResumeRequest: resumeRequest,
  RevokeRequest: revokeRequest,
  PendAdoption: pendAdoption,
  DiscardLapsed: discardLapsed,
  NoticeNewVersion: noticeNewVersion,
  UseProposal: useProposal,
  DecideProposal: decideProposal,
  CloseKeptProposals: closeKeptProposals,
  ReadRecord: readRecord,
  AuthorizeApp: authorizeApp,
};

/** Every command on a request's stream (`request-<id>`): its consent, grants, pending keeps and proposals. */
export type RequestCommand = CommandOf<typeof requestDecisions>;

/** The request aggregate's one decider: every refusal of a request command is in the decision its type names. */
export const requestDecider = deciderOf(noRequest, evolveRequest, requestDecisions);
