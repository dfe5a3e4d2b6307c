import { deciderOf, type CommandOf } from '../decider.js';
import { eraseAccount } from './erase-account.js';
import { registerUser } from './register-user.js';
import { revokeAllSessions } from './revoke-all-sessions.js';
import { evolveUser, newUser } from './user-state.js';
import { verifySecondaryEmail } from './verify-secondary-email.js';

const userDecisions = {
  RegisterUser: registerUser,
  VerifySecondaryEmail: verifySecondaryEmail,
  RevokeAllSessions: revokeAllSessions,
  EraseAccount: eraseAccount,
};

/** Every command on a user's stream (`user-<identityId>`): registration, verified addresses, revoking every session, erasure. */
export type UserCommand = CommandOf<typeof userDecisions>;

/** The user's one decider: every refusal of a user command is in the decision its type names. */
export const userDecider = deciderOf(newUser, evolveUser, userDecisions);
