import type { EntityRole } from '../../events/entity-events.js';
import { isRefusal } from '../refusal.js';
import { entityDecision, leavesNoManager, managedBy } from './entity-state.js';

/** Addresses arrive normalized; the member need not have an account yet. */
export type SetEntityMember = { readonly entityId: string; readonly actorEmail: string; readonly email: string; readonly role: EntityRole };

/** Adds a member or changes a role; the same role again changes nothing. */
export const setEntityMember = entityDecision<SetEntityMember>((state, cmd) => {
  const entity = managedBy(state, cmd.actorEmail);
  if (isRefusal(entity)) return entity;
  if (entity.members.get(cmd.email) === cmd.role) return [];
  if (cmd.role !== 'MANAGER') {
    const orphaned = leavesNoManager(entity.members, cmd.email);
    if (orphaned) return orphaned;
  }
  return [{ type: 'EntityMemberSet', data: { entityId: cmd.entityId, email: cmd.email, role: cmd.role } }];
});
