import { randomUUID } from 'node:crypto';
import type { Caller } from '../identity/identity-service.js';
import { organizationDecider } from '../commands/organizations/organization-decider.js';
import { isRefusal, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EventContext } from '../events/envelope.js';
import { isPermission, organizationStreams as streams, type Permission } from '../events/organization-events.js';
import { iso, type Member, type MemberView } from './member.js';
import { organizationSql as q, type MemberRow, type MembershipRow } from './organization-queries.js';

export type Membership = { readonly permissions: readonly Permission[] };

/**
 * The caller's membership as it stands now, as the per-request check reads it with the session's
 * (IdentityService.liveMemberSession): every member request is judged by it, never by the token's
 * claims.
 */
export function membershipOf(row: MembershipRow): Membership {
  return { permissions: row.permissions.filter(isPermission) };
}

export type OrganizationView = { readonly organizationId: string; readonly name: string; readonly createdAt: string };

export type OrganizationDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
};

/** Organizations, their members and apps (R-ORG-01 to R-ORG-12). Sign-in and the key live beside it. */
export class OrganizationService {
  constructor(private readonly deps: OrganizationDeps) {}

  async create(caller: Caller, name: string, context: EventContext): Promise<OrganizationView | Refusal> {
    const organizationId = randomUUID();
    const created = await handle(
      this.deps,
      streams.organization(organizationId),
      organizationDecider,
      { type: 'CreateOrganization', data: { organizationId, name, createdBy: caller.identityId, creatorEmail: caller.email } },
      { context, newStream: true },
    );
    if (isRefusal(created)) return created;
    return { organizationId, name, createdAt: context.occurredAt };
  }

  async members(organizationId: string): Promise<MemberView[]> {
    return (await this.deps.readModels.query<MemberRow>(q.members, [organizationId])).rows.map(memberView);
  }

  async setMember(actor: Member, email: string, permissions: readonly Permission[], context: EventContext): Promise<MemberView | Refusal> {
    const done = await handle(
      this.deps,
      streams.organization(actor.organizationId),
      organizationDecider,
      { type: 'SetMember', data: { organizationId: actor.organizationId, actorEmail: actor.email, email, permissions } },
      { context },
    );
    if (isRefusal(done)) return done;
    const row = (await this.deps.readModels.query<MemberRow>(q.member, [actor.organizationId, email])).rows[0];
    if (!row) throw new Error('a member just set is missing from the read model');
    return memberView(row);
  }

  async removeMember(actor: Member, email: string, context: EventContext): Promise<true | Refusal> {
    const done = await handle(
      this.deps,
      streams.organization(actor.organizationId),
      organizationDecider,
      { type: 'RemoveMember', data: { organizationId: actor.organizationId, actorEmail: actor.email, email } },
      { context },
    );
    return isRefusal(done) ? done : true;
  }

  async registerApp(actor: Member, name: string, context: EventContext): Promise<{ clientId: string; name: string } | Refusal> {
    const clientId = randomUUID();
    const done = await handle(
      this.deps,
      streams.organization(actor.organizationId),
      organizationDecider,
      { type: 'RegisterApp', data: { organizationId: actor.organizationId, actorEmail: actor.email, clientId, name } },
      { context },
    );
    return isRefusal(done) ? done : { clientId, name };
  }
}

function memberView(row: MemberRow): MemberView {
  return { email: row.email, permissions: row.permissions.filter(isPermission), addedAt: iso(row.added_at) };
}
