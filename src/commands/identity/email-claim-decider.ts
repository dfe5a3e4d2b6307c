import type { EmailClaimed } from '../../events/identity-events.js';
import type { Decider } from '../decider.js';
import { claimEmail, type ClaimEmail } from './claim-email.js';
import { evolveEmailClaim, noClaim, type EmailClaim } from './email-claim-state.js';

/** Every command on an address's stream (`email-<subject>`, the address index): its claim. */
export type EmailClaimCommand = { readonly type: 'ClaimEmail'; readonly data: ClaimEmail };

/** The address claim's one decider: the stream holds one identity per address at a time. */
export const emailClaimDecider: Decider<EmailClaim, EmailClaimCommand, EmailClaimed> = {
  initialState: noClaim,
  evolve: evolveEmailClaim,
  decide: (state, command) => {
    switch (command.type) {
      case 'ClaimEmail':
        return claimEmail(state, command.data);
      default: {
        // A union of one command does not narrow to never; its type tag does.
        const unknown: never = command.type;
        return unknown;
      }
    }
  },
};
