import { deciderOf, type CommandOf } from '../decider.js';
import { createOrganization } from './create-organization.js';
import { evolveOrganization, noOrganization } from './organization-state.js';
import { registerApp } from './register-app.js';
import { removeMember } from './remove-member.js';
import { sealKey } from './seal-key.js';
import { setMember } from './set-member.js';
import { signInMember } from './sign-in-member.js';

const organizationDecisions = {
  CreateOrganization: createOrganization,
  SetMember: setMember,
  RemoveMember: removeMember,
  SignInMember: signInMember,
  SealKey: sealKey,
  RegisterApp: registerApp,
};

/** Every command on an organization's stream (`org-<id>`): its creation, members, key and apps. */
export type OrganizationCommand = CommandOf<typeof organizationDecisions>;

/** The organization's one decider: every refusal of an organization command is in the decision its type names. */
export const organizationDecider = deciderOf(noOrganization, evolveOrganization, organizationDecisions);
