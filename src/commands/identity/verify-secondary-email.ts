import { userDecision } from './user-state.js';

export type VerifySecondaryEmail = { readonly identityId: string; readonly email: string; readonly sessionId: string };

/** verify-email/confirm, after the code matched: one event names the account and the session. */
export const verifySecondaryEmail = userDecision<VerifySecondaryEmail>((_state, cmd) => [
  { type: 'SecondaryEmailVerified', data: { identityId: cmd.identityId, email: cmd.email, sessionId: cmd.sessionId } },
]);
