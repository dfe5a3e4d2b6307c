import type { OrganizationEvent } from '../../events/organization-events.js';
import type { Decider } from '../decider.js';
import { createOrganization, type CreateOrganization } from './create-organization.js';
import { evolveOrganization, noOrganization, type OrganizationState } from './organization-state.js';
import { registerApp, type RegisterApp } from './register-app.js';
import { removeMember, type RemoveMember } from './remove-member.js';
import { sealKey, type SealKey } from './seal-key.js';
import { setMember, type SetMember } from './set-member.js';
import { signInMember, type SignInMember } from './sign-in-member.js';

/** Every command on an organization's stream (`org-<id>`): its creation, members, key and apps. */
export type OrganizationCommand =
  | { readonly type: 'CreateOrganization'; readonly data: CreateOrganization }
  | { readonly type: 'SetMember'; readonly data: SetMember }
  | { readonly type: 'RemoveMember'; readonly data: RemoveMember }
  | { readonly type: 'SignInMember'; readonly data: SignInMember }
  | { readonly type: 'SealKey'; readonly data: SealKey }
  | { readonly type: 'RegisterApp'; readonly data: RegisterApp };

/** The organization's one decider: every refusal of an organization command is in the decision it switches to. */
export const organizationDecider: Decider<OrganizationState, OrganizationCommand, OrganizationEvent> = {
  initialState: noOrganization,
  evolve: evolveOrganization,
  decide: (state, command) => {
    switch (command.type) {
      case 'CreateOrganization':
        return createOrganization(state, command.data);
      case 'SetMember':
        return setMember(state, command.data);
      case 'RemoveMember':
        return removeMember(state, command.data);
      case 'SignInMember':
        return signInMember(state, command.data);
      case 'SealKey':
        return sealKey(state, command.data);
      case 'RegisterApp':
        return registerApp(state, command.data);
      default: {
        const unknown: never = command;
        return unknown;
      }
    }
  },
};
