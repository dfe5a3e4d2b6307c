import { randomUUID } from 'node:crypto';
import type { Caller } from '../identity/identity-service.js';
import { organizationDecider } from '../commands/organizations/organization-decider.js';
import { isRefusal, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EventContext } from '../events/envelope.js';
import { parseId } from '../ids.js';
import { isPermission, organizationStreams as streams, type AppIdentityProvider, type Permission } from '../events/organization-events.js';
import type { Logger } from '../logger.js';
import { MailUnavailableError, type Mailer } from '../mail/index.js';
import { iso, type Member, type MemberView } from './member.js';
import { memberAddedMail } from './member-mail.js';
import { clientFields, clientMetadataView, type ClientMetadataView, type OAuthClientMetadata } from './app-metadata.js';
import {
  organizationSql as q,
  type AppRow,
  type MemberRow,
  type MembershipOfRow,
  type MembershipRow,
  type OAuthClientRow,
} from './organization-queries.js';

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

/** §11: one of the caller's memberships, as GET /org/v1/organizations lists it. */
export type MembershipView = {
  readonly organizationId: string;
  readonly name: string;
  readonly permissions: readonly Permission[];
  readonly joinedAt: string;
};

/** An app as GET /org/v1/apps lists it: redirectUris, and jwks or jwksUri, only for an OAuth client (contract §13). */
export type AppView = { readonly clientId: string; readonly name: string; readonly registeredAt: string } & ClientMetadataView;

/** POST /org/v1/apps's answer. */
export type RegisteredApp = { readonly clientId: string; readonly name: string } & ClientMetadataView;

/** Contract §13: an app as the authorization server knows its client, with the organization it acts for. */
export type OAuthClient = {
  readonly clientId: string;
  readonly organizationId: string;
  readonly organizationName: string;
  readonly name: string;
  readonly redirectUris: string[];
  readonly jwks?: { keys: object[] };
  readonly jwksUri?: string;
  /** Its organization's OpenID Connect provider, for "Continue with <organization>". */
  readonly identityProvider?: AppIdentityProvider;
};

export type OrganizationDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly mailer: Mailer;
  readonly logger: Logger;
  /** BASE_URL: a new member's mail links to the organization's requests page there (§11). */
  readonly baseUrl: string;
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

  /** R-HOOK-07: the organization's name and the addresses of its members with member_manage, who hear of its webhooks; null when none. */
  async managers(organizationId: string): Promise<{ readonly name: string; readonly emails: readonly string[] } | null> {
    const organization = (await this.deps.readModels.query<{ name: string }>(q.organization, [organizationId])).rows[0];
    if (!organization) return null;
    const members = await this.members(organizationId);
    return { name: organization.name, emails: members.filter((m) => m.permissions.includes('member_manage')).map((m) => m.email) };
  }

  /** §11: the organizations the caller is a member of, by their login address. */
  async memberships(caller: Caller): Promise<MembershipView[]> {
    const rows = (await this.deps.readModels.query<MembershipOfRow>(q.membershipsOf, [caller.email])).rows;
    return rows.map((r) => ({
      organizationId: r.organization_id,
      name: r.name,
      permissions: r.permissions.filter(isPermission),
      joinedAt: iso(r.added_at),
    }));
  }

  async setMember(actor: Member, email: string, permissions: readonly Permission[], context: EventContext): Promise<MemberView | Refusal> {
    // §11: only an address that was no member gets the mail; read-your-writes makes this read current.
    const wasMember = (await this.deps.readModels.query<MemberRow>(q.member, [actor.organizationId, email])).rowCount > 0;
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
    if (!wasMember && done.events.length > 0) await this.welcome(actor.organizationId, email);
    return memberView(row);
  }

  /** The member stands whether or not the mail goes out, as a request stands without its invitation mail. */
  private async welcome(organizationId: string, email: string): Promise<void> {
    const organization = (await this.deps.readModels.query<{ name: string }>(q.organization, [organizationId])).rows[0];
    if (!organization) throw new Error('an organization with a member is missing from the read model');
    try {
      await this.deps.mailer.send(memberAddedMail(email, organization.name, `${this.deps.baseUrl}/org/${organizationId}/requests`));
    } catch (e) {
      if (!(e instanceof MailUnavailableError)) throw e;
      this.deps.logger.warn({ reason: e.reason }, 'member mail could not be handed over');
    }
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

  async apps(organizationId: string): Promise<AppView[]> {
    const rows = (await this.deps.readModels.query<AppRow>(q.apps, [organizationId])).rows;
    return rows.map((r) => ({ clientId: r.client_id, name: r.name, registeredAt: iso(r.registered_at), ...metadataOf(r) }));
  }

  async registerApp(
    actor: Member,
    name: string,
    client: OAuthClientMetadata | null,
    context: EventContext,
  ): Promise<RegisteredApp | Refusal> {
    const clientId = randomUUID();
    const done = await handle(
      this.deps,
      streams.organization(actor.organizationId),
      organizationDecider,
      { type: 'RegisterApp', data: { organizationId: actor.organizationId, actorEmail: actor.email, clientId, name, client } },
      { context },
    );
    return isRefusal(done) ? done : { clientId, name, ...clientMetadataView(clientFields(client)) };
  }

  /** Contract §13: the authorization server's client of this id; null for an unknown or malformed id, or an app without redirect URIs. */
  async oauthClient(clientId: string): Promise<OAuthClient | null> {
    const id = parseId<'app'>(clientId);
    if (!id) return null;
    const row = (await this.deps.readModels.query<OAuthClientRow>(q.oauthClient, [id])).rows[0];
    if (!row) return null;
    return {
      clientId: row.client_id,
      organizationId: row.organization_id,
      organizationName: row.organization_name,
      name: row.name,
      redirectUris: row.redirect_uris,
      ...metadataOf(row),
    };
  }
}

const metadataOf = (row: AppRow | OAuthClientRow): ClientMetadataView =>
  clientMetadataView({ redirectUris: row.redirect_uris, jwks: row.jwks, jwksUri: row.jwks_uri, identityProvider: row.identity_provider });

function memberView(row: MemberRow): MemberView {
  return { email: row.email, permissions: row.permissions.filter(isPermission), addedAt: iso(row.added_at) };
}
