import type { EntityEvent, EntityRole } from '../../events/entity-events.js';
import { refuse, type Refusal } from '../refusal.js';

export type EntityState =
  | { readonly status: 'none' }
  | { readonly status: 'active'; readonly entityId: string; readonly name: string; readonly members: ReadonlyMap<string, EntityRole> };

export const noEntity: EntityState = { status: 'none' };

export function evolveEntity(state: EntityState, event: EntityEvent): EntityState {
  switch (event.type) {
    case 'EntityCreated':
      return {
        status: 'active',
        entityId: event.data.entityId,
        name: event.data.name,
        members: new Map([[event.data.managerEmail, 'MANAGER']]),
      };
    case 'EntityMemberSet':
      return state.status === 'none' ? state : { ...state, members: new Map(state.members).set(event.data.email, event.data.role) };
    case 'EntityMemberRemoved': {
      if (state.status === 'none') return state;
      const members = new Map(state.members);
      members.delete(event.data.email);
      return { ...state, members };
    }
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** One command's decision on a legal entity: the entity decider (entity-decider.ts) switches to it. */
export type EntityDecision<C> = (state: EntityState, command: C) => readonly EntityEvent[] | Refusal;
export const entityDecision = <C>(decide: EntityDecision<C>): EntityDecision<C> => decide;

/**
 * Who may change the members: a MANAGER. An entity the actor is not in does not exist for them
 * (R-ENT-06: 404, not 403); a MEMBER sees the entity, so for them it is a plain forbidden.
 */
export function managedBy(state: EntityState, actorEmail: string): Extract<EntityState, { status: 'active' }> | Refusal {
  const role = state.status === 'active' ? state.members.get(actorEmail) : undefined;
  if (state.status !== 'active' || role === undefined) return refuse('not_found', 'no such legal entity');
  if (role !== 'MANAGER') return refuse('forbidden', 'only a MANAGER of the legal entity may change its members');
  return state;
}

/** An entity never stays without a MANAGER: nobody could change it any more. */
export function leavesNoManager(members: ReadonlyMap<string, EntityRole>, email: string): Refusal | null {
  if (members.get(email) !== 'MANAGER') return null;
  const managers = [...members.values()].filter((r) => r === 'MANAGER').length;
  return managers > 1 ? null : refuse('conflict', 'a legal entity needs at least one MANAGER: appoint another MANAGER first');
}
