import type { PartnerIdentityLinked } from '../../events/identity-events.js';
import type { Refusal } from '../refusal.js';

/** A partner's identity (`partner-identity-<subject>`): the account it is linked to, null while none. */
export type PartnerIdentity = { readonly identityId: string | null };

export const unlinked: PartnerIdentity = { identityId: null };

export function evolvePartnerIdentity(_state: PartnerIdentity, event: PartnerIdentityLinked): PartnerIdentity {
  switch (event.type) {
    case 'PartnerIdentityLinked':
      return { identityId: event.data.identityId };
    default: {
      // A union of one type does not narrow to never; its type tag does.
      const unknown: never = event.type;
      return unknown;
    }
  }
}

/** One command's decision on a partner identity: the partner identity decider (partner-identity-decider.ts) switches to it. */
export type PartnerIdentityDecision<C> = (state: PartnerIdentity, command: C) => readonly PartnerIdentityLinked[] | Refusal;
export const partnerIdentityDecision = <C>(decide: PartnerIdentityDecision<C>): PartnerIdentityDecision<C> => decide;
