import { refuse } from '../refusal.js';
import { organizationDecision } from './organization-state.js';

export type SignInMember = { readonly organizationId: string; readonly email: string; readonly now: Date; readonly warmSeconds: number };

/**
 * POST /org/v1/token: a member signing in makes the key warm for the warm window (R-ORG-10).
 * Not a member answers exactly as an unknown organization does: no existence oracle.
 */
export const signInMember = organizationDecision<SignInMember>((state, cmd) => {
  if (state.status !== 'active' || !state.members.has(cmd.email)) return refuse('not_found', 'no such organization');
  const until = new Date(cmd.now.getTime() + cmd.warmSeconds * 1000).toISOString();
  return [{ type: 'KeyWarmed', data: { organizationId: state.organizationId, until } }];
});
