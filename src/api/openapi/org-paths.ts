import { PERMISSIONS } from '../../events/organization-events.js';
import { ADOPTIONS, SLOT_KINDS, SLOT_VERBS } from '../../events/manifest-events.js';
import {
  asMember,
  asUser,
  JSON_ERRORS,
  jsonAnswer,
  jsonRequest,
  memberErrors,
  object,
  pathParam,
  problems,
  text,
  versionQuery,
} from './components.js';

const manifestId = pathParam('manifestId', 'A manifest of the token’s organization');
const email = pathParam('email', 'The member’s address');
const permissions = { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...PERMISSIONS] } };

/** manifest-body.ts: a SlotInput's shape; the rules between its fields are the decision's. */
const slot = object(
  {
    slotId: { type: ['string', 'null'], format: 'uuid', description: 'A slot of the previous version, to carry it over' },
    label: text(200),
    group: text(200),
    subject: { anyOf: [text(200), { type: 'null' }] },
    multiple: { type: 'boolean' },
    kind: { enum: [...SLOT_KINDS] },
    target: text(200),
    verbs: { type: 'array', minItems: 1, items: { enum: [...SLOT_VERBS] } },
    adoption: { enum: [...ADOPTIONS] },
    required: { type: 'boolean', default: false, description: 'Accepting the request needs a grant for this slot (§11)' },
  },
  ['label', 'group', 'multiple', 'kind', 'target', 'verbs', 'adoption'],
);
const versionFields = {
  purpose: { type: 'string', minLength: 1, maxLength: 2000, description: 'Why the organization asks (§11)' },
  retention: { type: 'string', description: 'An ISO 8601 duration such as P90D' },
  slots: { type: 'array', minItems: 1, maxItems: 200, items: slot },
};
const keyState = jsonAnswer(
  'The key’s state',
  object({ state: { enum: ['warm', 'cold'] }, warmUntil: { type: 'string', format: 'date-time' } }, ['state']),
);
const manifest = jsonAnswer('The manifest', object({ manifest: { type: 'object' } }));

/** Organizations, members, the key, apps and manifests (R-ORG-*, R-MAN-*). */
export const orgPaths = {
  '/org/v1/organizations': {
    get: {
      summary: 'The organizations the caller is a member of (§11)',
      security: asUser,
      responses: {
        '200': jsonAnswer(
          'Memberships',
          object({
            organizations: {
              type: 'array',
              items: object({
                organizationId: { type: 'string' },
                name: { type: 'string' },
                permissions,
                joinedAt: { type: 'string', format: 'date-time' },
              }),
            },
          }),
        ),
        ...problems(400, 401, 403),
      },
    },
    post: {
      summary: 'Found an organization',
      security: asUser,
      requestBody: jsonRequest(object({ name: text(200) })),
      responses: {
        '201': jsonAnswer(
          'Founded',
          object({
            organization: object({
              organizationId: { type: 'string' },
              name: { type: 'string' },
              createdAt: { type: 'string', format: 'date-time' },
            }),
          }),
        ),
        ...problems(...JSON_ERRORS, 401, 403, 503),
      },
    },
  },
  '/org/v1/token': {
    post: {
      summary: 'Sign in to an organization as a member',
      security: asUser,
      requestBody: jsonRequest(object({ organizationId: { type: 'string' } })),
      responses: {
        '200': jsonAnswer(
          'A member token (§11: called through the session cookie with X-CSRF: 1, it is set as the ' +
            'organization’s member cookie and left out of the body)',
          object(
            {
              token: { type: 'string' },
              expiresAt: { type: 'string', format: 'date-time' },
              organizationId: { type: 'string' },
              permissions,
            },
            ['expiresAt', 'organizationId', 'permissions'],
          ),
        ),
        ...problems(...JSON_ERRORS, 401, 403, 404, 423, 503),
      },
    },
  },
  '/org/v1/members': {
    get: {
      summary: 'The members',
      security: asMember('member_manage'),
      responses: {
        '200': jsonAnswer(
          'Members',
          object({
            members: {
              type: 'array',
              items: object({ email: { type: 'string' }, permissions, addedAt: { type: 'string', format: 'date-time' } }),
            },
          }),
        ),
        ...memberErrors(),
      },
    },
  },
  '/org/v1/members/{email}': {
    put: {
      summary: 'Add a member or set their permissions',
      security: asMember('member_manage'),
      parameters: [email],
      requestBody: jsonRequest(object({ permissions })),
      responses: { '200': jsonAnswer('The member', object({ member: { type: 'object' } })), ...memberErrors(...JSON_ERRORS, 409, 503) },
    },
    delete: {
      summary: 'Remove a member',
      security: asMember('member_manage'),
      parameters: [email],
      responses: { '200': jsonAnswer('Removed', object({ removed: { const: true } })), ...memberErrors(409, 503) },
    },
  },
  '/org/v1/key': {
    get: { summary: 'The organization key’s state', security: asMember('request_read'), responses: { '200': keyState, ...memberErrors() } },
  },
  '/org/v1/key/seal': {
    post: {
      summary: 'Seal the organization key',
      security: asMember('member_manage'),
      responses: {
        '200': jsonAnswer('Cold until a member signs in again', object({ state: { const: 'cold' } })),
        ...memberErrors(409, 503),
      },
    },
  },
  '/org/v1/apps': {
    get: {
      summary: 'The apps, the earliest registered first',
      security: asMember('member_manage'),
      responses: {
        '200': jsonAnswer(
          'Apps',
          object({
            apps: {
              type: 'array',
              items: object({
                clientId: { type: 'string' },
                name: { type: 'string' },
                registeredAt: { type: 'string', format: 'date-time' },
              }),
            },
          }),
        ),
        ...memberErrors(),
      },
    },
    post: {
      summary: 'Register an app',
      security: asMember('member_manage'),
      requestBody: jsonRequest(object({ name: text(200) })),
      responses: {
        '201': jsonAnswer('The app', object({ clientId: { type: 'string' }, name: { type: 'string' } })),
        ...memberErrors(...JSON_ERRORS, 503),
      },
    },
  },
  '/org/v1/manifests': {
    get: {
      summary: 'The manifests',
      security: asMember('request_read'),
      responses: { '200': jsonAnswer('Manifests', object({ manifests: { type: 'array' } })), ...memberErrors() },
    },
    post: {
      summary: 'Create a manifest',
      security: asMember('manifest_manage'),
      requestBody: jsonRequest(object({ name: text(200), ...versionFields })),
      responses: { '201': manifest, ...memberErrors(...JSON_ERRORS, 503) },
    },
  },
  '/org/v1/manifests/{manifestId}': {
    get: {
      summary: 'A manifest, at a version',
      security: asMember('request_read'),
      parameters: [manifestId, versionQuery],
      responses: { '200': manifest, ...memberErrors(400) },
    },
  },
  '/org/v1/manifests/{manifestId}/versions': {
    post: {
      summary: 'Publish a new version',
      security: asMember('manifest_manage'),
      parameters: [manifestId],
      requestBody: jsonRequest(object(versionFields)),
      responses: { '201': manifest, ...memberErrors(...JSON_ERRORS, 409, 503) },
    },
  },
};
