import { exportJWK, generateKeyPair } from 'jose';
import { isRefusal, type Refusal } from '../../../src/commands/refusal.js';
import type {
  AppRegistered,
  MemberSet,
  OrganizationCreated,
  OrganizationEvent,
  Permission,
} from '../../../src/events/organization-events.js';
import { issuerOf, jwksUriOf, publicJwksOf, redirectUriOf, type OAuthClientMetadata } from '../../../src/organizations/app-metadata.js';
import { specOf } from '../../support/given.js';
import { organizationDecider } from '../../../src/commands/organizations/organization-decider.js';

const org = 'o1';
const created: OrganizationCreated = { type: 'OrganizationCreated', data: { organizationId: org, name: 'Acme', createdBy: 'i1' } };
const all: Permission[] = ['request_read', 'request_manage', 'manifest_manage', 'member_manage'];
const member = (email: string, permissions: Permission[]): MemberSet => ({
  type: 'MemberSet',
  data: { organizationId: org, email, permissions },
});
const owner = member('ann@x.com', all);
const warmed: OrganizationEvent = { type: 'KeyWarmed', data: { organizationId: org, until: '2026-11-22T22:00:00.000Z' } };
const now = new Date('2026-11-22T10:00:00.000Z');
const create = specOf(organizationDecider, 'CreateOrganization');
const signIn = specOf(organizationDecider, 'SignInMember');
const seal = specOf(organizationDecider, 'SealKey');
const registerApp = specOf(organizationDecider, 'RegisterApp');

describe('organizations (contract 2)', () => {
  it('creating one makes the creator a member with every permission', () =>
    create().when({ organizationId: org, name: 'Acme', createdBy: 'i1', creatorEmail: 'ann@x.com' }).then(created, owner));

  it('an existing organization is not created again', () =>
    create(created, owner).when({ organizationId: org, name: 'Acme', createdBy: 'i1', creatorEmail: 'ann@x.com' }).thenRefused('conflict'));
});

describe('members (contract 2, 8)', () => {
  const given = specOf(organizationDecider, 'SetMember');

  it("a member_manage member adds an address that has no account yet, with the permissions in the contract's order", () =>
    given(created, owner)
      .when({ organizationId: org, actorEmail: 'ann@x.com', email: 'bob@x.com', permissions: ['request_manage', 'request_read'] })
      .then(member('bob@x.com', ['request_read', 'request_manage'])));

  it("changes a member's permissions; the same set again writes nothing", () => {
    given(created, owner, member('bob@x.com', ['request_read']))
      .when({ organizationId: org, actorEmail: 'ann@x.com', email: 'bob@x.com', permissions: ['manifest_manage'] })
      .then(member('bob@x.com', ['manifest_manage']));
    given(created, owner, member('bob@x.com', ['request_read']))
      .when({ organizationId: org, actorEmail: 'ann@x.com', email: 'bob@x.com', permissions: ['request_read'] })
      .then();
  });

  it('the last member with member_manage keeps it; with a second one it may go', () => {
    given(created, owner)
      .when({ organizationId: org, actorEmail: 'ann@x.com', email: 'ann@x.com', permissions: ['request_read'] })
      .thenRefused('conflict', /member_manage/);
    given(created, owner, member('bob@x.com', ['member_manage']))
      .when({ organizationId: org, actorEmail: 'ann@x.com', email: 'ann@x.com', permissions: ['request_read'] })
      .then(member('ann@x.com', ['request_read']));
  });

  it('judges the actor by the stream: forbidden without member_manage, unauthenticated once removed, not_found for no organization', () => {
    given(created, owner, member('bob@x.com', ['request_read']))
      .when({ organizationId: org, actorEmail: 'bob@x.com', email: 'eve@x.com', permissions: ['request_read'] })
      .thenRefused('forbidden');
    given(created, owner)
      .when({ organizationId: org, actorEmail: 'bob@x.com', email: 'eve@x.com', permissions: ['request_read'] })
      .thenRefused('unauthenticated');
    given()
      .when({ organizationId: org, actorEmail: 'ann@x.com', email: 'eve@x.com', permissions: ['request_read'] })
      .thenRefused('not_found');
  });

  it('an empty permission set is refused', () =>
    given(created, owner)
      .when({ organizationId: org, actorEmail: 'ann@x.com', email: 'bob@x.com', permissions: [] })
      .thenRefused('invalid_request'));

  it('removes a member; an address that is not one is not_found; the last member_manage holder stays', () => {
    const remove = specOf(organizationDecider, 'RemoveMember');
    remove(created, owner, member('bob@x.com', ['request_read']))
      .when({ organizationId: org, actorEmail: 'ann@x.com', email: 'bob@x.com' })
      .then({ type: 'MemberRemoved', data: { organizationId: org, email: 'bob@x.com' } });
    remove(created, owner).when({ organizationId: org, actorEmail: 'ann@x.com', email: 'bob@x.com' }).thenRefused('not_found');
    remove(created, owner).when({ organizationId: org, actorEmail: 'ann@x.com', email: 'ann@x.com' }).thenRefused('conflict');
    remove(created, owner, member('bob@x.com', all))
      .when({ organizationId: org, actorEmail: 'bob@x.com', email: 'ann@x.com' })
      .then({ type: 'MemberRemoved', data: { organizationId: org, email: 'ann@x.com' } });
  });
});

describe('the organization key (contract 2: warm window, seal)', () => {
  it('a member signing in warms the key for the warm window', () =>
    signIn(created, owner).when({ organizationId: org, email: 'ann@x.com', now, warmSeconds: 43_200 }).then(warmed));

  it('a non-member, a removed member and an unknown organization are all not_found', () => {
    signIn(created, owner).when({ organizationId: org, email: 'eve@x.com', now, warmSeconds: 60 }).thenRefused('not_found');
    signIn(created, owner, member('bob@x.com', ['request_read']), {
      type: 'MemberRemoved',
      data: { organizationId: org, email: 'bob@x.com' },
    })
      .when({ organizationId: org, email: 'bob@x.com', now, warmSeconds: 60 })
      .thenRefused('not_found');
    signIn().when({ organizationId: org, email: 'ann@x.com', now, warmSeconds: 60 }).thenRefused('not_found');
  });

  it('seal ends a warm key once; a key not warmed since the last seal has nothing to end', () => {
    const sealed: OrganizationEvent = { type: 'KeySealed', data: { organizationId: org } };
    seal(created, owner, warmed).when({ organizationId: org, actorEmail: 'ann@x.com' }).then(sealed);
    seal(created, owner, warmed, sealed).when({ organizationId: org, actorEmail: 'ann@x.com' }).then();
    seal(created, owner).when({ organizationId: org, actorEmail: 'ann@x.com' }).then();
    seal(created, owner, warmed, sealed, warmed).when({ organizationId: org, actorEmail: 'ann@x.com' }).then(sealed);
    seal(created, owner, member('bob@x.com', ['request_read']), warmed)
      .when({ organizationId: org, actorEmail: 'bob@x.com' })
      .thenRefused('forbidden');
  });
});

describe('apps (contract 2, 13)', () => {
  const app = { organizationId: org, clientId: 'c1', name: 'Portal' };
  const registered = (client: Partial<AppRegistered['data']> = {}): AppRegistered => ({
    type: 'AppRegistered',
    data: {
      organizationId: org,
      clientId: 'c1',
      name: 'Portal',
      redirectUris: [],
      jwks: null,
      jwksUri: null,
      identityProvider: null,
      ...client,
    },
  });
  let withKeys: OAuthClientMetadata;
  let withKeysAt: OAuthClientMetadata;
  before(async () => {
    const redirectUris = [checked(redirectUriOf('https://portal.acme.example/cb', 'redirectUris[0]', { loopbackHttp: false }))];
    const { publicKey } = await generateKeyPair('EdDSA', { extractable: true });
    withKeys = { redirectUris, jwks: checked(await publicJwksOf({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1' }] }, 'jwks')) };
    withKeysAt = { redirectUris, jwksUri: checked(jwksUriOf('https://portal.acme.example/jwks.json', 'jwksUri')) };
  });

  it('a member_manage member registers an app; without metadata it has no redirect URIs and no keys', () =>
    registerApp(created, owner)
      .when({ ...app, actorEmail: 'ann@x.com', client: null })
      .then(registered()));

  it('§13: an OAuth client is registered with its redirect URIs and its keys, by value or by URL', () => {
    registerApp(created, owner)
      .when({ ...app, actorEmail: 'ann@x.com', client: withKeys })
      .then(registered({ redirectUris: ['https://portal.acme.example/cb'], jwks: withKeys.jwks! }));
    registerApp(created, owner)
      .when({ ...app, actorEmail: 'ann@x.com', client: withKeysAt })
      .then(registered({ redirectUris: ['https://portal.acme.example/cb'], jwksUri: 'https://portal.acme.example/jwks.json' }));
  });

  it('§13: an OAuth client may carry its organization’s identity provider', () => {
    const issuer = checked(issuerOf('https://id.acme.example', 'identityProvider.issuer', { loopbackHttp: false }));
    registerApp(created, owner)
      .when({ ...app, actorEmail: 'ann@x.com', client: { ...withKeys, identityProvider: { issuer, clientId: 'dss' } } })
      .then(
        registered({
          redirectUris: ['https://portal.acme.example/cb'],
          jwks: withKeys.jwks!,
          identityProvider: { issuer: 'https://id.acme.example', clientId: 'dss' },
        }),
      );
  });

  it('needs member_manage, a member still on the stream and an organization, with metadata or without', () => {
    for (const client of [null, withKeys]) {
      registerApp(created, owner, member('bob@x.com', ['request_manage']))
        .when({ ...app, actorEmail: 'bob@x.com', client })
        .thenRefused('forbidden', /member_manage/);
      registerApp(created, owner)
        .when({ ...app, actorEmail: 'eve@x.com', client })
        .thenRefused('unauthenticated');
      registerApp()
        .when({ ...app, actorEmail: 'ann@x.com', client })
        .thenRefused('not_found');
    }
  });
});

/** A value the edge parsed, for a command: a refusal here is the test's own mistake. */
function checked<T>(value: T | Refusal): T {
  if (isRefusal(value)) throw new Error(value.message);
  return value;
}
