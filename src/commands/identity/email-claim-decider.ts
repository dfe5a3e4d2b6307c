import { deciderOf, type CommandOf } from '../decider.js';
import { claimEmail } from './claim-email.js';
import { evolveEmailClaim, noClaim } from './email-claim-state.js';

const emailClaimDecisions = { ClaimEmail: claimEmail };

/** Every command on an address's stream (`email-<subject>`, the address index): its claim. */
export type EmailClaimCommand = CommandOf<typeof emailClaimDecisions>;

/** The address claim's one decider: the stream holds one identity per address at a time. */
export const emailClaimDecider = deciderOf(noClaim, evolveEmailClaim, emailClaimDecisions);
