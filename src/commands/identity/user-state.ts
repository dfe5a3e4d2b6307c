import type { UserEvent } from '../../events/identity-events.js';

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
