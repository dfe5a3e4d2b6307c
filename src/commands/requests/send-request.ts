import { refuse } from '../refusal.js';
import type { RequestSent } from '../../events/request-events.js';
import { requestDecision } from './request-rules.js';

export const DEFAULT_INVITATION_MS = 7 * 24 * 60 * 60 * 1000;
export const MAX_INVITATION_MS = 90 * 24 * 60 * 60 * 1000;

export type SendRequest = Omit<RequestSent['data'], 'invitationExpiresAt'> & {
  /** Requested end of the invitation window; default 7 days, at most 90 (R-REQ-02). */
  readonly invitationExpiresAt: string | null;
  readonly now: Date;
};

/** POST /org/v1/requests (initiatedBy org) and RequestMutation.open (initiatedBy recipient). */
export const sendRequest = requestDecision<SendRequest>((state, cmd) => {
  if (state.phase !== 'none') return refuse('conflict', 'a request with this id exists');
  const now = cmd.now.getTime();
  const until = cmd.invitationExpiresAt === null ? now + DEFAULT_INVITATION_MS : Date.parse(cmd.invitationExpiresAt);
  if (!(until > now)) return refuse('invalid_request', 'invitationExpiresAt must be in the future');
  if (until - now > MAX_INVITATION_MS) return refuse('invalid_request', 'invitationExpiresAt may be at most 90 days ahead');
  const { now: _now, ...data } = cmd;
  return [{ type: 'RequestSent', data: { ...data, invitationExpiresAt: new Date(until).toISOString() } }];
});
