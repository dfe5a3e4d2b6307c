import type { Permission } from '../events/organization-events.js';

/** A caller acting for an organization, as the membership stands on this request. */
export type Member = {
  readonly organizationId: string;
  readonly identityId: string;
  readonly email: string;
  readonly permissions: readonly Permission[];
};

export type MemberView = { readonly email: string; readonly permissions: readonly Permission[]; readonly addedAt: string };

export const iso = (d: Date | string): string => new Date(d).toISOString();
