import type { Decider } from '../decider.js';
import type { UserEvent } from '../../events/identity-events.js';
import { evolveUser, newUser, type UserState } from './user-state.js';

export type RegisterUser = { readonly identityId: string; readonly displayName: string | null };

/** user.register: idempotent; the userId is the identity id, so a second call answers the same. */
export const registerUser: Decider<UserState, RegisterUser, UserEvent> = {
  initialState: newUser,
  evolve: evolveUser,
  decide: (state, cmd) =>
    state.registered ? [] : [{ type: 'UserRegistered', data: { identityId: cmd.identityId, displayName: cmd.displayName } }],
};
