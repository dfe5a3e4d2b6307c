import { requestDecision, requireState, type At } from './request-rules.js';

/** active or suspended → revoked, for good. */
export const revokeRequest = requestDecision<At>(
  (s, cmd) => requireState(s, cmd.now, ['active', 'suspended'], 'revoke') ?? [{ type: 'RequestRevoked', data: { requestId: s.requestId } }],
);
