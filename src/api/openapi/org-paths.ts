import { PERMISSIONS } from '../../events/organization-events.js';
import { ADOPTIONS, SLOT_KINDS, SLOT_VERBS } from '../../events/manifest-events.js';
import * as example from './examples.js';
import { APP_CLIENT_FIELDS, appClientFields, appJwk } from './schemas.js';
import {
  APPENDS,
  arrayOf,
  asMember,
  asUser,
  exactly,
  JSON_ERRORS,
  jsonAnswer,
  jsonRequest,
  memberErrors,
  object,
  pathParam,
  problems,
  ref,
  tagged,
  text,
  uuid,
  versionQuery,
} from './components.js';

const manifestId = pathParam('manifestId', 'A manifest of the token’s organization', uuid());
const email = pathParam('email', 'The member’s address', { type: 'string', format: 'email' });
const permissions = { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...PERMISSIONS] } };

/** manifest-body.ts: a SlotInput's shape; the rules between its fields are the decision's. */
const slot = object(
  {
    slotId: { type: ['string', 'null'], format: 'uuid', description: 'A slot of the previous version, to carry it over' },
    label: text(200),
    group: text(200),
    subject: { anyOf: [text(200), { type: 'null' }] },
    multiple: { type: 'boolean' },
    kind: { type: 'string', enum: [...SLOT_KINDS] },
    target: text(200),
    verbs: { type: 'array', minItems: 1, items: { enum: [...SLOT_VERBS] } },
    adoption: { type: 'string', enum: [...ADOPTIONS] },
    required: { type: 'boolean', default: false, description: 'Accepting the request needs a grant for this slot (§11)' },
  },
  ['label', 'group', 'multiple', 'kind', 'target', 'verbs', 'adoption'],
);
const versionFields = {
  purpose: { type: 'string', minLength: 1, maxLength: 2000, description: 'Why the organization asks (§11)' },
  retention: { type: 'string', format: 'duration', description: 'An ISO 8601 duration such as P90D, at least PT1S, at most P100Y' },
  slots: { type: 'array', minItems: 1, maxItems: 200, items: slot },
};
const manifest = (description: string) => jsonAnswer(description, exactly({ manifest: ref('Manifest') }), { manifest: example.manifest });

/** Organizations, members, the key, apps and manifests (R-ORG-*, R-MAN-*). */
export const orgPaths = {
  ...tagged('Organizations and members', {
    '/org/v1/organizations': {
      get: {
        operationId: 'listMyOrganizations',
        summary: 'The organizations the caller is a member of (§11)',
        security: asUser,
        responses: {
          '200': jsonAnswer('Memberships', exactly({ organizations: arrayOf(ref('Membership')) }), {
            organizations: [
              {
                organizationId: example.ids.organizationId,
                name: 'Acme',
                permissions: example.memberToken.permissions,
                joinedAt: '2026-11-27T08:00:00.000Z',
              },
            ],
          }),
          ...problems(400, 401, 403),
        },
      },
      post: {
        operationId: 'createOrganization',
        summary: 'Found an organization',
        security: asUser,
        requestBody: jsonRequest(object({ name: text(200) }), { name: 'Acme' }),
        responses: {
          '201': jsonAnswer('Founded', exactly({ organization: ref('Organization') }), { organization: example.organization }),
          ...problems(...JSON_ERRORS, 401, 403, ...APPENDS),
        },
      },
    },
    '/org/v1/token': {
      post: {
        operationId: 'signInMember',
        summary: 'Sign in to an organization as a member',
        description: 'The organization key becomes warm for a while: keeps and corrections go through (R-ORG-10).',
        security: asUser,
        requestBody: jsonRequest(object({ organizationId: { type: 'string', format: 'uuid' } }), {
          organizationId: example.ids.organizationId,
        }),
        responses: {
          '200': jsonAnswer(
            'A member token (§11: called through the session cookie with X-CSRF: 1, it is set as the ' +
              'organization’s member cookie and left out of the body)',
            ref('MemberToken'),
            example.memberToken,
          ),
          ...problems(...JSON_ERRORS, 401, 403, 404, ...APPENDS),
        },
      },
    },
    '/org/v1/members': {
      get: {
        operationId: 'listMembers',
        summary: 'The members',
        security: asMember('member_manage'),
        responses: {
          '200': jsonAnswer('Members', exactly({ members: arrayOf(ref('Member')) }), { members: [example.member] }),
          ...memberErrors(),
        },
      },
    },
    '/org/v1/members/{email}': {
      put: {
        operationId: 'setMember',
        summary: 'Add a member or set their permissions',
        security: asMember('member_manage'),
        parameters: [email],
        requestBody: jsonRequest(object({ permissions }), { permissions: example.member.permissions }),
        responses: {
          '200': jsonAnswer('The member', exactly({ member: ref('Member') }), { member: example.member }),
          ...memberErrors(...JSON_ERRORS, 409, ...APPENDS),
        },
      },
      delete: {
        operationId: 'removeMember',
        summary: 'Remove a member',
        security: asMember('member_manage'),
        parameters: [email],
        responses: {
          '200': jsonAnswer('Removed', exactly({ removed: { const: true } }), { removed: true }),
          ...memberErrors(409, ...APPENDS),
        },
      },
    },
    '/org/v1/key': {
      get: {
        operationId: 'getKeyState',
        summary: 'The organization key’s state',
        security: asMember('request_read'),
        responses: {
          '200': jsonAnswer('The key’s state', ref('KeyState'), { state: 'warm', warmUntil: '2026-11-27T10:00:00.000Z' }),
          ...memberErrors(),
        },
      },
    },
    '/org/v1/key/seal': {
      post: {
        operationId: 'sealKey',
        summary: 'Seal the organization key',
        security: asMember('member_manage'),
        responses: {
          '200': jsonAnswer('Cold until a member signs in again', exactly({ state: { const: 'cold' } }), { state: 'cold' }),
          ...memberErrors(409, ...APPENDS),
        },
      },
    },
    '/org/v1/apps': {
      get: {
        operationId: 'listApps',
        summary: 'The apps, the earliest registered first',
        security: asMember('member_manage'),
        responses: {
          '200': jsonAnswer('Apps', exactly({ apps: arrayOf(ref('App')) }), { apps: [example.app, example.oauthApp] }),
          ...memberErrors(),
        },
      },
      post: {
        operationId: 'registerApp',
        summary: 'Register an app',
        description:
          'With `name` alone, an app for `user.request.open`. With `redirectUris` and exactly one of `jwks` and `jwksUri`, ' +
          'also an OAuth client of the authorization server (contract §13), authenticating with private_key_jwt.',
        security: asMember('member_manage'),
        requestBody: jsonRequest(
          {
            ...object({ name: text(200), ...appClientFields(appJwk(true)) }, ['name']),
            dependentRequired: { jwks: ['redirectUris'], jwksUri: ['redirectUris'], identityProvider: ['redirectUris'] },
          },
          { name: example.oauthApp.name, redirectUris: example.oauthApp.redirectUris, jwks: example.oauthApp.jwks },
        ),
        responses: {
          '201': jsonAnswer(
            'The app',
            exactly({ clientId: uuid(), name: { type: 'string' }, ...appClientFields(appJwk(false)) }, APP_CLIENT_FIELDS),
            {
              clientId: example.oauthApp.clientId,
              name: example.oauthApp.name,
              redirectUris: example.oauthApp.redirectUris,
              jwks: example.oauthApp.jwks,
            },
          ),
          ...memberErrors(...JSON_ERRORS, ...APPENDS),
        },
      },
    },
  }),
  ...tagged('Manifests', {
    '/org/v1/manifests': {
      get: {
        operationId: 'listManifests',
        summary: 'The manifests, each at its newest version',
        security: asMember('request_read'),
        responses: {
          '200': jsonAnswer('Manifests', exactly({ manifests: arrayOf(ref('Manifest')) }), { manifests: [example.manifest] }),
          ...memberErrors(),
        },
      },
      post: {
        operationId: 'createManifest',
        summary: 'Create a manifest',
        security: asMember('manifest_manage'),
        requestBody: jsonRequest(
          object({ name: text(200), ...versionFields }, ['name', 'purpose', 'retention', 'slots']),
          example.manifestInput,
        ),
        responses: { '201': manifest('The manifest, at version 1'), ...memberErrors(...JSON_ERRORS, ...APPENDS) },
      },
    },
    '/org/v1/manifests/{manifestId}': {
      get: {
        operationId: 'getManifest',
        summary: 'A manifest, at a version',
        security: asMember('request_read'),
        parameters: [manifestId, versionQuery],
        responses: { '200': manifest('The manifest at that version'), ...memberErrors() },
      },
    },
    '/org/v1/manifests/{manifestId}/versions': {
      post: {
        operationId: 'publishManifestVersion',
        summary: 'Publish a new version',
        security: asMember('manifest_manage'),
        parameters: [manifestId],
        requestBody: jsonRequest(object(versionFields), example.manifestVersionInput),
        responses: { '201': manifest('The manifest at its new version'), ...memberErrors(...JSON_ERRORS, 409, ...APPENDS) },
      },
    },
  }),
};
