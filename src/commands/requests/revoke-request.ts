import { requestDecider, requireState, type At } from './request-decider.js';

/** active or suspended → revoked, for good. */
export const revokeRequest = requestDecider<At>(
  (s, cmd) => requireState(s, cmd.now, ['active', 'suspended'], 'revoke') ?? [{ type: 'RequestRevoked', data: { requestId: s.requestId } }],
);
