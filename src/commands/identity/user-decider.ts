import type { UserEvent } from '../../events/identity-events.js';
import type { Decider } from '../decider.js';
import { eraseAccount, type EraseAccount } from './erase-account.js';
import { registerUser, type RegisterUser } from './register-user.js';
import { revokeAllSessions, type RevokeAllSessions } from './revoke-all-sessions.js';
import { evolveUser, newUser, type UserState } from './user-state.js';
import { verifySecondaryEmail, type VerifySecondaryEmail } from './verify-secondary-email.js';

/** Every command on a user's stream (`user-<identityId>`): registration, verified addresses, revoking every session, erasure. */
export type UserCommand =
  | { readonly type: 'RegisterUser'; readonly data: RegisterUser }
  | { readonly type: 'VerifySecondaryEmail'; readonly data: VerifySecondaryEmail }
  | { readonly type: 'RevokeAllSessions'; readonly data: RevokeAllSessions }
  | { readonly type: 'EraseAccount'; readonly data: EraseAccount };

/** The user's one decider: every refusal of a user command is in the decision it switches to. */
export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: newUser,
  evolve: evolveUser,
  decide: (state, command) => {
    switch (command.type) {
      case 'RegisterUser':
        return registerUser(state, command.data);
      case 'VerifySecondaryEmail':
        return verifySecondaryEmail(state, command.data);
      case 'RevokeAllSessions':
        return revokeAllSessions(state, command.data);
      case 'EraseAccount':
        return eraseAccount(state, command.data);
      default: {
        const unknown: never = command;
        return unknown;
      }
    }
  },
};
