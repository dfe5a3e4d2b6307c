import { deciderOf, type CommandOf } from '../decider.js';
import { linkPartnerIdentity } from './link-partner-identity.js';
import { evolvePartnerIdentity, unlinked } from './partner-identity-state.js';

const partnerIdentityDecisions = { LinkPartnerIdentity: linkPartnerIdentity };

/** Every command on a partner identity's stream (`partner-identity-<subject>`): its link. */
export type PartnerIdentityCommand = CommandOf<typeof partnerIdentityDecisions>;

/** A partner identity's one decider: the stream holds one account per (issuer, subject) at a time. */
export const partnerIdentityDecider = deciderOf(unlinked, evolvePartnerIdentity, partnerIdentityDecisions);
