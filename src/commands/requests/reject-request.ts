import { requestDecider, requireState, type At } from './request-decider.js';

/** pending → rejected_by_recipient. */
export const rejectRequest = requestDecider<At>(
  (s, cmd) => requireState(s, cmd.now, ['pending'], 'reject') ?? [{ type: 'RequestRejected', data: { requestId: s.requestId } }],
);
