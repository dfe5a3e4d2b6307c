import { userDecision } from './user-state.js';

/** The caller's live sessions at the time of the call, the current one left out unless included. */
export type RevokeAllSessions = { readonly identityId: string; readonly liveSessionIds: readonly string[] };

export const revokeAllSessions = userDecision<RevokeAllSessions>((_state, cmd) =>
  cmd.liveSessionIds.length === 0
    ? []
    : [{ type: 'SessionsRevoked', data: { identityId: cmd.identityId, sessionIds: [...cmd.liveSessionIds] } }],
);
