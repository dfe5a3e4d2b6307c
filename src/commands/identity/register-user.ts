import { userDecision } from './user-state.js';

export type RegisterUser = { readonly identityId: string; readonly displayName: string | null };

/** user.register: idempotent; the userId is the identity id, so a second call answers the same. */
export const registerUser = userDecision<RegisterUser>((state, cmd) =>
  state.registered ? [] : [{ type: 'UserRegistered', data: { identityId: cmd.identityId, displayName: cmd.displayName } }],
);
