import { requestDecision, requireState, type At } from './request-rules.js';

/** pending → rejected_by_recipient. */
export const rejectRequest = requestDecision<At>(
  (s, cmd) => requireState(s, cmd.now, ['pending'], 'reject') ?? [{ type: 'RequestRejected', data: { requestId: s.requestId } }],
);
