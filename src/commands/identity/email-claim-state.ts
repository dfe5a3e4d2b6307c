import type { EmailClaimed } from '../../events/identity-events.js';
import type { Refusal } from '../refusal.js';

/** An address's claim (`email-<subject>`): the identity it belongs to, null while unclaimed. */
export type EmailClaim = { readonly identityId: string | null };

export const noClaim: EmailClaim = { identityId: null };

export function evolveEmailClaim(_state: EmailClaim, event: EmailClaimed): EmailClaim {
  switch (event.type) {
    case 'EmailClaimed':
      return { identityId: event.data.identityId };
    default: {
      // A union of one type does not narrow to never; its type tag does.
      const unknown: never = event.type;
      return unknown;
    }
  }
}

/** One command's decision on an address's claim: the email claim decider (email-claim-decider.ts) switches to it. */
export type EmailClaimDecision<C> = (state: EmailClaim, command: C) => readonly EmailClaimed[] | Refusal;
export const emailClaimDecision = <C>(decide: EmailClaimDecision<C>): EmailClaimDecision<C> => decide;
