import { requestDecider, requireState, type At } from './request-decider.js';

/** active → suspended: every record reads connection_inactive until resumed. */
export const suspendRequest = requestDecider<At>(
  (s, cmd) => requireState(s, cmd.now, ['active'], 'suspend') ?? [{ type: 'RequestSuspended', data: { requestId: s.requestId } }],
);
