import type { OrganizationEvent, Permission } from '../../events/organization-events.js';
import { refuse, type Refusal } from '../refusal.js';

export type ActiveOrganization = {
  readonly status: 'active';
  readonly organizationId: string;
  readonly name: string;
  /** Normalized login address → permissions (canonical order). */
  readonly members: ReadonlyMap<string, readonly Permission[]>;
  /** Whether the newest key event is a KeyWarmed: only then has a seal anything to end. */
  readonly keyWarmedSinceSeal: boolean;
};

export type OrganizationState = { readonly status: 'none' } | ActiveOrganization;

export const noOrganization: OrganizationState = { status: 'none' };

export function evolveOrganization(state: OrganizationState, event: OrganizationEvent): OrganizationState {
  switch (event.type) {
    case 'OrganizationCreated':
      return {
        status: 'active',
        organizationId: event.data.organizationId,
        name: event.data.name,
        members: new Map(),
        keyWarmedSinceSeal: false,
      };
    case 'MemberSet':
      return state.status === 'none' ? state : { ...state, members: new Map(state.members).set(event.data.email, event.data.permissions) };
    case 'MemberRemoved': {
      if (state.status === 'none') return state;
      const members = new Map(state.members);
      members.delete(event.data.email);
      return { ...state, members };
    }
    case 'KeyWarmed':
      return state.status === 'none' ? state : { ...state, keyWarmedSinceSeal: true };
    case 'KeySealed':
      return state.status === 'none' ? state : { ...state, keyWarmedSinceSeal: false };
    case 'AppRegistered':
      return state;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/**
 * The organization as seen by a member acting with `permission`. The API checked the same from the
 * read model before; this repeats it on the stream, so a change that raced the request still wins.
 * A caller who is no longer a member is unauthenticated (R-ORG-05: a removed member's token).
 */
export function actingAs(state: OrganizationState, actorEmail: string, permission: Permission): ActiveOrganization | Refusal {
  if (state.status !== 'active') return refuse('not_found', 'no such organization');
  const permissions = state.members.get(actorEmail);
  if (!permissions) return refuse('unauthenticated', 'you are no longer a member of this organization');
  if (!permissions.includes(permission)) return refuse('forbidden', `this needs the ${permission} permission`);
  return state;
}

/** Someone must always be able to manage the members, or nobody ever could again. */
export function leavesNoMemberManager(
  members: ReadonlyMap<string, readonly Permission[]>,
  email: string,
  next: readonly Permission[] | null,
): Refusal | null {
  if (!members.get(email)?.includes('member_manage') || next?.includes('member_manage')) return null;
  const managers = [...members.values()].filter((p) => p.includes('member_manage')).length;
  return managers > 1
    ? null
    : refuse('conflict', 'the organization needs at least one member with member_manage: give it to another member first');
}

/** One command's decision on an organization: the organization decider (organization-decider.ts) switches to it. */
export type OrganizationDecision<C> = (state: OrganizationState, command: C) => readonly OrganizationEvent[] | Refusal;
export const organizationDecision = <C>(decide: OrganizationDecision<C>): OrganizationDecision<C> => decide;
