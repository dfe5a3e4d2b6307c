import type { RequestEvent } from '../../events/request-events.js';
import type { Decider } from '../decider.js';
import { closeKeptProposals, decideProposal } from '../proposals/close-proposal.js';
import { noticeNewVersion } from '../proposals/notice-new-version.js';
import { useProposal } from '../proposals/use-proposal.js';
import { acceptRequest } from './accept-request.js';
import { cancelRequest } from './cancel-request.js';
import { discardLapsed } from './discard-adoption.js';
import { grantSlot } from './grant-slot.js';
import { pendAdoption } from './pend-adoption.js';
import { rejectRequest } from './reject-request.js';
import { evolveRequest, noRequest, type RequestState } from './request-state.js';
import { resumeRequest } from './resume-request.js';
import { revokeRequest } from './revoke-request.js';
import { sendRequest } from './send-request.js';
import { suspendRequest } from './suspend-request.js';
import { withdrawSlot } from './withdraw-slot.js';

/** A command's data, as its decision takes it. */
type DataOf<D extends (state: RequestState, command: never) => unknown> = Parameters<D>[1];

/** Every command on a request's stream (`request-<id>`): its consent, grants, pending keeps and proposals. */
export type RequestCommand =
  | { readonly type: 'SendRequest'; readonly data: DataOf<typeof sendRequest> }
  | { readonly type: 'CancelRequest'; readonly data: DataOf<typeof cancelRequest> }
  | { readonly type: 'AcceptRequest'; readonly data: DataOf<typeof acceptRequest> }
  | { readonly type: 'RejectRequest'; readonly data: DataOf<typeof rejectRequest> }
  | { readonly type: 'GrantSlot'; readonly data: DataOf<typeof grantSlot> }
  | { readonly type: 'WithdrawSlot'; readonly data: DataOf<typeof withdrawSlot> }
  | { readonly type: 'SuspendRequest'; readonly data: DataOf<typeof suspendRequest> }
  | { readonly type: 'ResumeRequest'; readonly data: DataOf<typeof resumeRequest> }
  | { readonly type: 'RevokeRequest'; readonly data: DataOf<typeof revokeRequest> }
  | { readonly type: 'PendAdoption'; readonly data: DataOf<typeof pendAdoption> }
  | { readonly type: 'DiscardLapsed'; readonly data: DataOf<typeof discardLapsed> }
  | { readonly type: 'NoticeNewVersion'; readonly data: DataOf<typeof noticeNewVersion> }
  | { readonly type: 'UseProposal'; readonly data: DataOf<typeof useProposal> }
  | { readonly type: 'DecideProposal'; readonly data: DataOf<typeof decideProposal> }
  | { readonly type: 'CloseKeptProposals'; readonly data: DataOf<typeof closeKeptProposals> };

/** The request aggregate's one decider: every refusal of a request command is in the decision it switches to. */
export const requestDecider: Decider<RequestState, RequestCommand, RequestEvent> = {
  initialState: noRequest,
  evolve: evolveRequest,
  decide: (state, command) => {
    switch (command.type) {
      case 'SendRequest':
        return sendRequest(state, command.data);
      case 'CancelRequest':
        return cancelRequest(state, command.data);
      case 'AcceptRequest':
        return acceptRequest(state, command.data);
      case 'RejectRequest':
        return rejectRequest(state, command.data);
      case 'GrantSlot':
        return grantSlot(state, command.data);
      case 'WithdrawSlot':
        return withdrawSlot(state, command.data);
      case 'SuspendRequest':
        return suspendRequest(state, command.data);
      case 'ResumeRequest':
        return resumeRequest(state, command.data);
      case 'RevokeRequest':
        return revokeRequest(state, command.data);
      case 'PendAdoption':
        return pendAdoption(state, command.data);
      case 'DiscardLapsed':
        return discardLapsed(state, command.data);
      case 'NoticeNewVersion':
        return noticeNewVersion(state, command.data);
      case 'UseProposal':
        return useProposal(state, command.data);
      case 'DecideProposal':
        return decideProposal(state, command.data);
      case 'CloseKeptProposals':
        return closeKeptProposals(state, command.data);
      default: {
        const unknown: never = command;
        return unknown;
      }
    }
  },
};
