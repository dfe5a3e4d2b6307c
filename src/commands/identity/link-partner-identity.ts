import { refuse } from '../refusal.js';
import { partnerIdentityDecision } from './partner-identity-state.js';

/** `erased`: the account the identity was linked to, when the sign-in found that account erased. */
export type LinkPartnerIdentity = {
  readonly identityId: string;
  readonly issuer: string;
  readonly subject: string;
  readonly erased: string | null;
};

/**
 * R-PART-08: a partner's identity belongs to one account: linking it again to that account changes
 * nothing, to another is refused while the first stands; once that account is erased it may be
 * linked anew.
 */
export const linkPartnerIdentity = partnerIdentityDecision<LinkPartnerIdentity>((state, cmd) => {
  if (state.identityId === cmd.identityId) return [];
  if (state.identityId !== null && state.identityId !== cmd.erased)
    return refuse('conflict', 'this sign-in of the organization’s is linked to another account here');
  return [{ type: 'PartnerIdentityLinked', data: { identityId: cmd.identityId, issuer: cmd.issuer, subject: cmd.subject } }];
});
