import type { AppIdentityProvider, AppJwks } from '../events/organization-events.js';

/** Read-model queries of the organizations projector's tables. */
export const organizationSql = {
  organization: `SELECT organization_id::text AS organization_id, name, created_at FROM rm.organizations WHERE organization_id = $1`,
  member: `SELECT email, permissions, added_at FROM rm.organization_members WHERE organization_id = $1 AND email = $2`,
  /** The membership a member token is issued in (R-ACC-04). */
  membershipId: `SELECT membership_id::text AS membership_id FROM rm.organization_members WHERE organization_id = $1 AND email = $2`,
  members: `SELECT email, permissions, added_at FROM rm.organization_members WHERE organization_id = $1
            ORDER BY added_at, email COLLATE "C"`,
  /** The organization's apps, the earliest registered first (GET /org/v1/apps). */
  apps: `SELECT client_id::text AS client_id, name, registered_at, redirect_uris, jwks, jwks_uri, identity_provider
         FROM rm.organization_apps
         WHERE organization_id = $1 ORDER BY registered_at, client_id`,
  /** Contract §13: an app as the authorization server reads it, with its organization's name; an app without redirect URIs is none. */
  oauthClient: `SELECT a.client_id::text AS client_id, a.organization_id::text AS organization_id, o.name AS organization_name, a.name,
                       a.redirect_uris, a.jwks, a.jwks_uri, a.identity_provider
                FROM rm.organization_apps a JOIN rm.organizations o ON o.organization_id = a.organization_id
                WHERE a.client_id = $1 AND jsonb_array_length(a.redirect_uris) > 0`,
  key: `SELECT key_warm_until, key_warmed_at FROM rm.organizations WHERE organization_id = $1`,
  /** §11: the organizations an address is a member of, the earliest joined first. */
  membershipsOf: `SELECT o.organization_id::text AS organization_id, o.name, m.permissions, m.added_at
                  FROM rm.organization_members m JOIN rm.organizations o ON o.organization_id = m.organization_id
                  WHERE m.email = $1 ORDER BY m.added_at, o.organization_id`,
};

export type MemberRow = { email: string; permissions: string[]; added_at: Date | string };
export type MembershipOfRow = { organization_id: string; name: string; permissions: string[]; added_at: Date | string };
/** What the per-request check reads of a membership. */
export type MembershipRow = Pick<MemberRow, 'permissions'>;
type ClientColumns = {
  redirect_uris: string[];
  jwks: AppJwks | null;
  jwks_uri: string | null;
  identity_provider: AppIdentityProvider | null;
};
export type AppRow = ClientColumns & { client_id: string; name: string; registered_at: Date | string };
export type OAuthClientRow = ClientColumns & { client_id: string; organization_id: string; organization_name: string; name: string };
export type KeyRow = { key_warm_until: Date | string | null; key_warmed_at: Date | string | null };
