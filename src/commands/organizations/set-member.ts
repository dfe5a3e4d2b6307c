import { canonicalPermissions, type Permission } from '../../events/organization-events.js';
import { isRefusal, refuse } from '../refusal.js';
import { actingAs, leavesNoMemberManager, organizationDecision } from './organization-state.js';

/** Addresses arrive normalized; the member need not have an account yet. */
export type SetMember = {
  readonly organizationId: string;
  readonly actorEmail: string;
  readonly email: string;
  readonly permissions: readonly Permission[];
};

/** PUT /org/v1/members/{email}: adds a member or replaces their permissions; the same set again changes nothing. */
export const setMember = organizationDecision<SetMember>((state, cmd) => {
  const org = actingAs(state, cmd.actorEmail, 'member_manage');
  if (isRefusal(org)) return org;
  const permissions = canonicalPermissions(cmd.permissions);
  if (permissions.length === 0) return refuse('invalid_request', 'permissions must name at least one permission');
  const current = org.members.get(cmd.email);
  if (current && current.join() === permissions.join()) return [];
  const orphaned = leavesNoMemberManager(org.members, cmd.email, permissions);
  if (orphaned) return orphaned;
  return [{ type: 'MemberSet', data: { organizationId: org.organizationId, email: cmd.email, permissions } }];
});
