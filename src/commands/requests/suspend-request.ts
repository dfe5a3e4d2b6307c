import { requestDecision, requireState, type At } from './request-rules.js';

/** active → suspended: every record reads connection_inactive until resumed. */
export const suspendRequest = requestDecision<At>(
  (s, cmd) => requireState(s, cmd.now, ['active'], 'suspend') ?? [{ type: 'RequestSuspended', data: { requestId: s.requestId } }],
);
