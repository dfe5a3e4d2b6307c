import type {
  AppRegistered,
  KeySealed,
  KeyWarmed,
  MemberRemoved,
  MemberSet,
  OrganizationCreated,
  Permission,
} from '../../src/events/organization-events.js';
import { organizationsProjector } from '../../src/projections/organizations/organizations.js';
import { at, projectorSpecs, uuid, writtenIn } from '../support/projector-spec.js';

const acme = uuid(1);
const globex = uuid(2);
const ann = uuid(9);

const created = (organizationId: string, name: string): OrganizationCreated => ({
  type: 'OrganizationCreated',
  data: { organizationId, name, createdBy: ann },
});
const memberSet = (email: string, permissions: Permission[], organizationId = acme): MemberSet => ({
  type: 'MemberSet',
  data: { organizationId, email, permissions },
});
const memberRemoved = (email: string): MemberRemoved => ({ type: 'MemberRemoved', data: { organizationId: acme, email } });
const warmed = (until: string, organizationId = acme): KeyWarmed => ({ type: 'KeyWarmed', data: { organizationId, until } });
const sealed: KeySealed = { type: 'KeySealed', data: { organizationId: acme } };
const app = (clientId: string, name: string, client: Partial<AppRegistered['data']> = {}): AppRegistered => ({
  type: 'AppRegistered',
  data: { organizationId: acme, clientId, name, redirectUris: [], jwks: null, jwksUri: null, identityProvider: null, ...client },
});
const portalKeys = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'q3S96EYJL87XNr9ifZ9qIcr4sXK_OrjXYA1JQC-5o4U', kid: 'k1' }] };
const appRows = 'SELECT client_id, name, redirect_uris, jwks, jwks_uri, identity_provider FROM organization_apps ORDER BY client_id';

const organizations = `SELECT organization_id, name, created_by, created_at, key_warm_until, key_warmed_at, key_sealed_at
                       FROM organizations ORDER BY organization_id`;
const members = 'SELECT organization_id, email, permissions, added_at FROM organization_members ORDER BY organization_id, email';
const keyState = `SELECT key_warm_until, key_warmed_at, key_sealed_at FROM organizations WHERE organization_id = '${acme}'`;

describe('organizations read model: organizations, members, key warmth and apps', () => {
  const given = projectorSpecs();

  it('OrganizationCreated records it cold: never warmed, never sealed', () =>
    given(organizationsProjector, at('2026-11-01T09:00:00.000Z', created(acme, 'Acme'))).thenRows(organizations, [
      {
        organization_id: acme,
        name: 'Acme',
        created_by: ann,
        created_at: '2026-11-01T09:00:00.000Z',
        key_warm_until: null,
        key_warmed_at: null,
        key_sealed_at: null,
      },
    ]));

  it('MemberSet adds an address with its permissions; changing them keeps when it was added', () =>
    given(
      organizationsProjector,
      created(acme, 'Acme'),
      at('2026-11-01T09:00:00.000Z', memberSet('ann@example.com', ['request_read', 'request_manage', 'manifest_manage', 'member_manage'])),
      at('2026-11-02T09:00:00.000Z', memberSet('bob@example.com', ['request_read'])),
      at('2026-11-03T09:00:00.000Z', memberSet('bob@example.com', ['request_read', 'request_manage'])),
    ).thenRows(members, [
      {
        organization_id: acme,
        email: 'ann@example.com',
        permissions: ['request_read', 'request_manage', 'manifest_manage', 'member_manage'],
        added_at: '2026-11-01T09:00:00.000Z',
      },
      {
        organization_id: acme,
        email: 'bob@example.com',
        permissions: ['request_read', 'request_manage'],
        added_at: '2026-11-02T09:00:00.000Z',
      },
    ]));

  it('MemberRemoved drops the address from that organization; re-adding it starts a new membership', () =>
    given(
      organizationsProjector,
      created(acme, 'Acme'),
      created(globex, 'Globex'),
      at('2026-11-01T09:00:00.000Z', memberSet('bob@example.com', ['request_read'])),
      at('2026-11-01T09:00:00.000Z', memberSet('bob@example.com', ['member_manage'], globex)),
      memberRemoved('bob@example.com'),
      at('2026-11-04T09:00:00.000Z', memberSet('bob@example.com', ['request_manage'])),
      memberSet('cleo@example.com', ['request_read']),
      memberRemoved('cleo@example.com'),
    ).thenRows(members, [
      { organization_id: acme, email: 'bob@example.com', permissions: ['request_manage'], added_at: '2026-11-04T09:00:00.000Z' },
      { organization_id: globex, email: 'bob@example.com', permissions: ['member_manage'], added_at: '2026-11-01T09:00:00.000Z' },
    ]));

  it('KeyWarmed stores until when and since when the key is warm, for that organization only', () =>
    given(
      organizationsProjector,
      created(acme, 'Acme'),
      created(globex, 'Globex'),
      at('2026-11-05T08:00:00.000Z', warmed('2026-11-05T20:00:00.000Z')),
    ).thenRows('SELECT organization_id, key_warm_until, key_warmed_at, key_sealed_at FROM organizations ORDER BY organization_id', [
      { organization_id: acme, key_warm_until: '2026-11-05T20:00:00.000Z', key_warmed_at: '2026-11-05T08:00:00.000Z', key_sealed_at: null },
      { organization_id: globex, key_warm_until: null, key_warmed_at: null, key_sealed_at: null },
    ]));

  it('a later KeyWarmed replaces the window', () =>
    given(
      organizationsProjector,
      created(acme, 'Acme'),
      at('2026-11-05T08:00:00.000Z', warmed('2026-11-05T20:00:00.000Z')),
      at('2026-11-05T10:00:00.000Z', warmed('2026-11-05T22:00:00.000Z')),
    ).thenRows(keyState, [{ key_warm_until: '2026-11-05T22:00:00.000Z', key_warmed_at: '2026-11-05T10:00:00.000Z', key_sealed_at: null }]));

  it('KeySealed makes the key cold at once, whatever the window said, and records when', () =>
    given(
      organizationsProjector,
      created(acme, 'Acme'),
      warmed('2026-11-05T20:00:00.000Z'),
      at('2026-11-05T09:00:00.000Z', sealed),
    ).thenRows(keyState, [{ key_warm_until: null, key_warmed_at: null, key_sealed_at: '2026-11-05T09:00:00.000Z' }]));

  it('a member signing in after a seal warms the key again; the seal time stays on record', () =>
    given(
      organizationsProjector,
      created(acme, 'Acme'),
      at('2026-11-05T09:00:00.000Z', sealed),
      at('2026-11-06T07:00:00.000Z', warmed('2026-11-06T19:00:00.000Z')),
    ).thenRows(keyState, [
      { key_warm_until: '2026-11-06T19:00:00.000Z', key_warmed_at: '2026-11-06T07:00:00.000Z', key_sealed_at: '2026-11-05T09:00:00.000Z' },
    ]));

  it('AppRegistered records the app under its client id, with its name and time', () =>
    given(
      organizationsProjector,
      created(acme, 'Acme'),
      at('2026-11-07T00:00:00.000Z', app(uuid(20), 'Onboarding')),
      at('2026-11-08T00:00:00.000Z', app(uuid(21), 'Renewals')),
    ).thenRows('SELECT client_id, organization_id, name, registered_at FROM organization_apps ORDER BY client_id', [
      { client_id: uuid(20), organization_id: acme, name: 'Onboarding', registered_at: '2026-11-07T00:00:00.000Z' },
      { client_id: uuid(21), organization_id: acme, name: 'Renewals', registered_at: '2026-11-08T00:00:00.000Z' },
    ]));

  it('§13: AppRegistered keeps an OAuth client’s redirect URIs with its keys or their URL, and its identity provider; an app without them has none', () =>
    given(
      organizationsProjector,
      created(acme, 'Acme'),
      app(uuid(20), 'Onboarding'),
      app(uuid(21), 'Portal', { redirectUris: ['https://portal.acme.example/cb', 'http://127.0.0.1:8080/cb'], jwks: portalKeys }),
      app(uuid(22), 'Mobile', {
        redirectUris: ['https://m.acme.example/cb'],
        jwksUri: 'https://m.acme.example/jwks.json',
        identityProvider: { issuer: 'https://id.acme.example', clientId: 'dss' },
      }),
    ).thenRows(appRows, [
      { client_id: uuid(20), name: 'Onboarding', redirect_uris: [], jwks: null, jwks_uri: null, identity_provider: null },
      {
        client_id: uuid(21),
        name: 'Portal',
        redirect_uris: ['https://portal.acme.example/cb', 'http://127.0.0.1:8080/cb'],
        jwks: portalKeys,
        jwks_uri: null,
        identity_provider: null,
      },
      {
        client_id: uuid(22),
        name: 'Mobile',
        redirect_uris: ['https://m.acme.example/cb'],
        jwks: null,
        jwks_uri: 'https://m.acme.example/jwks.json',
        identity_provider: { issuer: 'https://id.acme.example', clientId: 'dss' },
      },
    ]));

  it('an AppRegistered of schema version 1, from before apps were OAuth clients, reads as an app without redirect URIs or keys', () =>
    given(
      organizationsProjector,
      created(acme, 'Acme'),
      writtenIn(1, { type: 'AppRegistered', data: { organizationId: acme, clientId: uuid(20), name: 'Onboarding' } }),
    ).thenRows(appRows, [
      { client_id: uuid(20), name: 'Onboarding', redirect_uris: [], jwks: null, jwks_uri: null, identity_provider: null },
    ]));
});
