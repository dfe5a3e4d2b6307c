import { isRefusal, refuse } from '../refusal.js';
import { actingAs, leavesNoMemberManager, organizationDecision } from './organization-state.js';

export type RemoveMember = { readonly organizationId: string; readonly actorEmail: string; readonly email: string };

/** DELETE /org/v1/members/{email}: the member's tokens fail from the next request (the API reads the membership each time). */
export const removeMember = organizationDecision<RemoveMember>((state, cmd) => {
  const org = actingAs(state, cmd.actorEmail, 'member_manage');
  if (isRefusal(org)) return org;
  if (!org.members.has(cmd.email)) return refuse('not_found', 'no such member');
  const orphaned = leavesNoMemberManager(org.members, cmd.email, null);
  if (orphaned) return orphaned;
  return [{ type: 'MemberRemoved', data: { organizationId: org.organizationId, email: cmd.email } }];
});
