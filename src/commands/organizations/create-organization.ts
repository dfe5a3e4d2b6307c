import { PERMISSIONS } from '../../events/organization-events.js';
import { refuse } from '../refusal.js';
import { organizationDecision } from './organization-state.js';

/** `name` arrives checked at the edge; the creator's address arrives normalized. */
export type CreateOrganization = {
  readonly organizationId: string;
  readonly name: string;
  readonly createdBy: string;
  readonly creatorEmail: string;
};

/** R-ORG-01: the creator becomes a member with every permission. */
export const createOrganization = organizationDecision<CreateOrganization>((state, cmd) => {
  if (state.status !== 'none') return refuse('conflict', 'an organization with this id exists');
  return [
    { type: 'OrganizationCreated', data: { organizationId: cmd.organizationId, name: cmd.name, createdBy: cmd.createdBy } },
    { type: 'MemberSet', data: { organizationId: cmd.organizationId, email: cmd.creatorEmail, permissions: [...PERMISSIONS] } },
  ];
});
