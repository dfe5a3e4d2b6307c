import type { DomainEvent } from './domain-event.js';
import { eventDecoder, streamOf, type StreamRef } from './decoder.js';
import type { JsonObject } from './envelope.js';
import { appWithoutClientMetadata } from './upcasters/app-registered-v1.js';
import { appWithoutIdentityProvider } from './upcasters/app-registered-v2.js';

/** Stream: `org-<organizationId>`, one organization with its members, key state and apps. */
export const organizationStreams = {
  organization: (organizationId: string): StreamRef<OrganizationEvent> => streamOf(organizationEvents, `org-${organizationId}`),
};

/** The four permissions (R-ORG-03). */
export const PERMISSIONS = ['request_read', 'request_manage', 'manifest_manage', 'member_manage'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const isPermission = (value: unknown): value is Permission => PERMISSIONS.includes(value as Permission);

/** Each permission once, in the contract's order: equal sets are equal arrays. */
export const canonicalPermissions = (list: readonly Permission[]): Permission[] => PERMISSIONS.filter((p) => list.includes(p));

export type OrganizationCreated = DomainEvent<'OrganizationCreated', { organizationId: string; name: string; createdBy: string }>;
/**
 * Adds a member or replaces their permissions. Members are keyed by normalized login address,
 * not identity id: a member may be added before their account exists.
 */
export type MemberSet = DomainEvent<'MemberSet', { organizationId: string; email: string; permissions: Permission[] }>;
export type MemberRemoved = DomainEvent<'MemberRemoved', { organizationId: string; email: string }>;
/** A member signed in: the key is warm until `until` (see src/organizations/key-warmth.ts for what else it takes). */
export type KeyWarmed = DomainEvent<'KeyWarmed', { organizationId: string; until: string }>;
/** POST /org/v1/key/seal: cold until the next KeyWarmed, whatever `until` said. */
export type KeySealed = DomainEvent<'KeySealed', { organizationId: string }>;
/** An app's signing keys: a JWK Set of public keys (src/organizations/app-metadata.ts checks them). */
export type AppJwks = { keys: JsonObject[] };
/** The organization's OpenID Connect provider an app carries, and the service's client id there (contract §13). */
export type AppIdentityProvider = { issuer: string; clientId: string };
/**
 * Version 3 (contract §13): an app of the authorization server has its redirect URIs and its keys,
 * by value (`jwks`) or by URL (`jwksUri`), and may carry its organization's identity provider; an
 * app for user.request.open alone has none of them. Version 1 had none of the four, version 2 no
 * identityProvider.
 */
export type AppRegistered = DomainEvent<
  'AppRegistered',
  {
    organizationId: string;
    clientId: string;
    name: string;
    redirectUris: string[];
    jwks: AppJwks | null;
    jwksUri: string | null;
    identityProvider: AppIdentityProvider | null;
  }
>;

export type OrganizationEvent = OrganizationCreated | MemberSet | MemberRemoved | KeyWarmed | KeySealed | AppRegistered;

export const organizationEvents = eventDecoder<OrganizationEvent>('organization', {
  OrganizationCreated: { version: 1 },
  MemberSet: { version: 1 },
  MemberRemoved: { version: 1 },
  KeyWarmed: { version: 1 },
  KeySealed: { version: 1 },
  AppRegistered: { version: 3, upcasters: { 1: appWithoutClientMetadata, 2: appWithoutIdentityProvider } },
});
