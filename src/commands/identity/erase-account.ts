import type { Decider } from '../decider.js';
import type { UserEvent } from '../../events/identity-events.js';
import { evolveUser, newUser, type UserState } from './user-state.js';

export type EraseAccount = { readonly identityId: string };

/** user.security.eraseAccount (R-ERAS-01): once per account; a retry after it changes nothing. */
export const eraseAccount: Decider<UserState, EraseAccount, UserEvent> = {
  initialState: newUser,
  evolve: evolveUser,
  decide: (state, cmd) => (state.erased ? [] : [{ type: 'AccountErased', data: { identityId: cmd.identityId } }]),
};
