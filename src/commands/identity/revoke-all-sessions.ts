import type { Decider } from '../decider.js';
import type { UserEvent } from '../../events/identity-events.js';
import { evolveUser, newUser, type UserState } from './user-state.js';

/** The caller's live sessions at the time of the call, the current one left out unless included. */
export type RevokeAllSessions = { readonly identityId: string; readonly liveSessionIds: readonly string[] };

export const revokeAllSessions: Decider<UserState, RevokeAllSessions, UserEvent> = {
  initialState: newUser,
  evolve: evolveUser,
  decide: (_state, cmd) =>
    cmd.liveSessionIds.length === 0
      ? []
      : [{ type: 'SessionsRevoked', data: { identityId: cmd.identityId, sessionIds: [...cmd.liveSessionIds] } }],
};
