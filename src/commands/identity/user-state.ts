import type { UserEvent } from '../../events/identity-events.js';
import type { Refusal } from '../refusal.js';

export type UserState = { readonly registered: boolean; readonly verifiedEmails: readonly string[]; readonly erased: boolean };

export const newUser: UserState = { registered: false, verifiedEmails: [], erased: false };

export function evolveUser(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered':
      return { ...state, registered: true };
    case 'SecondaryEmailVerified':
      return state.verifiedEmails.includes(event.data.email)
        ? state
        : { ...state, verifiedEmails: [...state.verifiedEmails, event.data.email] };
    case 'SessionsRevoked':
      return state;
    case 'AccountErased':
      return { ...state, erased: true };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** One command's decision on a user's account: the user decider (user-decider.ts) switches to it. */
export type UserDecision<C> = (state: UserState, command: C) => readonly UserEvent[] | Refusal;
export const userDecision = <C>(decide: UserDecision<C>): UserDecision<C> => decide;
