import { emailClaimDecision } from './email-claim-state.js';

/** `erased`: the identity the address was claimed by, when the login found that account erased. */
export type ClaimEmail = { readonly email: string; readonly newIdentityId: string; readonly erased: string | null };

/**
 * Identity ids are stable per normalized address: the first claim wins and later ones change
 * nothing, until that account is erased; then the next login claims the address for a new one.
 */
export const claimEmail = emailClaimDecision<ClaimEmail>((state, cmd) =>
  state.identityId && state.identityId !== cmd.erased
    ? []
    : [{ type: 'EmailClaimed', data: { identityId: cmd.newIdentityId, email: cmd.email } }],
);
