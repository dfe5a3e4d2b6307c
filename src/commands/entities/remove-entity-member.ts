import { isRefusal } from '../refusal.js';
import { entityDecision, leavesNoManager, managedBy } from './entity-state.js';

export type RemoveEntityMember = { readonly entityId: string; readonly actorEmail: string; readonly email: string };

/** Removing an address that is no member changes nothing: the state asked for already holds. */
export const removeEntityMember = entityDecision<RemoveEntityMember>((state, cmd) => {
  const entity = managedBy(state, cmd.actorEmail);
  if (isRefusal(entity)) return entity;
  if (!entity.members.has(cmd.email)) return [];
  const orphaned = leavesNoManager(entity.members, cmd.email);
  if (orphaned) return orphaned;
  return [{ type: 'EntityMemberRemoved', data: { entityId: cmd.entityId, email: cmd.email } }];
});
