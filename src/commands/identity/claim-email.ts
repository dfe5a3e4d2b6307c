import type { Decider } from '../decider.js';
import type { EmailClaimed } from '../../events/identity-events.js';

export type ClaimEmail = { readonly email: string; readonly newIdentityId: string };
export type EmailClaim = { readonly identityId: string | null };

/** Identity ids are stable per normalized address: the first claim wins, later ones change nothing. */
export const claimEmail: Decider<EmailClaim, ClaimEmail, EmailClaimed> = {
  initialState: { identityId: null },
  evolve: (_state, e) => ({ identityId: e.data.identityId }),
  decide: (state, cmd) => (state.identityId ? [] : [{ type: 'EmailClaimed', data: { identityId: cmd.newIdentityId, email: cmd.email } }]),
};
