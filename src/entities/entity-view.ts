import type { EntityRole } from '../events/entity-events.js';

export type EntityMemberView = { readonly email: string; readonly role: EntityRole };

/** LegalEntity (R-ENT-05): `role` is the caller's own role in the entity. */
export type LegalEntityView = {
  readonly entityId: string;
  readonly name: string;
  readonly role: EntityRole;
  readonly members: readonly EntityMemberView[];
};

/** Members in one order everywhere (bytewise by address), so answers compare equal. */
export function sortedMembers(members: Iterable<readonly [string, EntityRole]>): EntityMemberView[] {
  return [...members].map(([email, role]) => ({ email, role })).sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
}
