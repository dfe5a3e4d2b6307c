import { userDecision } from './user-state.js';

export type EraseAccount = { readonly identityId: string };

/** user.security.eraseAccount (R-ERAS-01): once per account; a retry after it changes nothing. */
export const eraseAccount = userDecision<EraseAccount>((state, cmd) =>
  state.erased ? [] : [{ type: 'AccountErased', data: { identityId: cmd.identityId } }],
);
