import {
  arrayOf,
  asUser,
  exactly,
  freeForm,
  JSON_ERRORS,
  jsonAnswer,
  jsonRequest,
  object,
  pathParam,
  problems,
  ref,
  tagged,
  uuid,
  type OpenApiObject,
} from './components.js';
import { ids, request as requestExample } from './examples.js';

const uid = pathParam('uid', 'The authorization in progress, from the consent page’s URL');
const asApp = [{ partnerToken: [] }];
const redirect = jsonAnswer(
  'Where the browser goes next: back to the authorization, which returns to the app',
  exactly({ redirectTo: { type: 'string', format: 'uri' } }),
  { redirectTo: 'https://share.example.com/oauth/authorize/Zx9kQ2' },
);
const uidExample = 'dQw4w9WgXcQ-5mJ0eXkz1eQ7u0h3Z1bD2cQ4n8Pq';
const metadataFields: Record<string, OpenApiObject> = Object.fromEntries(
  ['issuer', 'authorization_endpoint', 'token_endpoint', 'pushed_authorization_request_endpoint', 'jwks_uri', 'revocation_endpoint'].map(
    (name) => [name, { type: 'string', format: 'uri' }],
  ),
);

/** The partner plane and its OAuth 2.0 authorization's own routes (contract §13, docs/oauth.md). */
export const partnerPaths = tagged('Partner plane', {
  '/.well-known/oauth-authorization-server': {
    get: {
      operationId: 'authorizationServerMetadata',
      summary: 'The authorization server’s metadata (RFC 8414); the same as /.well-known/openid-configuration',
      description: 'oidc-provider’s discovery document: every endpoint, and what the FAPI 2.0 profile requires (PAR, PKCE S256, DPoP).',
      responses: {
        '200': jsonAnswer(
          'The metadata',
          {
            type: 'object',
            required: ['issuer', 'authorization_endpoint', 'token_endpoint', 'pushed_authorization_request_endpoint', 'jwks_uri'],
            properties: {
              ...metadataFields,
              require_pushed_authorization_requests: { const: true },
              code_challenge_methods_supported: arrayOf({ type: 'string' }),
              dpop_signing_alg_values_supported: arrayOf({ type: 'string' }),
              authorization_details_types_supported: arrayOf({ type: 'string' }),
              authorization_response_iss_parameter_supported: { const: true },
            },
            additionalProperties: true,
            description: 'RFC 8414 metadata; more members than these, as the RFC allows',
          },
          {
            issuer: 'https://share.example.com',
            authorization_endpoint: 'https://share.example.com/oauth/authorize',
            token_endpoint: 'https://share.example.com/oauth/token',
            pushed_authorization_request_endpoint: 'https://share.example.com/oauth/par',
            jwks_uri: 'https://share.example.com/oauth/jwks',
            revocation_endpoint: 'https://share.example.com/oauth/revoke',
            require_pushed_authorization_requests: true,
            code_challenge_methods_supported: ['S256'],
            dpop_signing_alg_values_supported: ['Ed25519', 'EdDSA', 'ES256', 'PS256'],
            authorization_details_types_supported: ['data_request'],
            authorization_response_iss_parameter_supported: true,
          },
        ),
      },
    },
  },
  '/oauth/interaction/{uid}/asked': {
    get: {
      operationId: 'consentAsked',
      summary: 'What the authorization in progress asks: the app, its organization, the manifest',
      description: 'Called by the hosted consent page with the interaction cookie the authorization set.',
      parameters: [uid],
      responses: {
        '200': jsonAnswer(
          'The app and what it asks for',
          exactly({
            uid: { type: 'string' },
            app: exactly({ clientId: uuid(), name: { type: 'string' } }),
            organizationId: uuid(),
            manifestId: uuid(),
            partnerSignIn: {
              oneOf: [exactly({ organization: { type: 'string' } }), { type: 'null' }],
              description: 'Set when the app carries its organization’s identity provider: the page offers “Continue with <organization>”',
            },
          }),
          {
            uid: uidExample,
            app: { clientId: ids.clientId, name: 'Acme onboarding' },
            organizationId: ids.organizationId,
            manifestId: ids.manifestId,
            partnerSignIn: { organization: 'Acme Bank' },
          },
        ),
        ...problems(404),
      },
    },
  },
  '/oauth/interaction/{uid}/open': {
    post: {
      operationId: 'consentOpen',
      summary: 'The request the person answers for the app: their active connection, or one opened now',
      security: asUser,
      parameters: [uid],
      responses: {
        '200': jsonAnswer(
          'The request, and whether it is an active connection already (then finish at once)',
          exactly({ requestId: uuid(), active: { type: 'boolean' } }),
          { requestId: ids.requestId, active: false },
        ),
        ...problems(401, 403, 404, 429),
      },
    },
  },
  '/oauth/interaction/{uid}/finish': {
    post: {
      operationId: 'consentFinish',
      summary: 'The person accepted the request: the authorization goes on, naming it',
      security: asUser,
      parameters: [uid],
      requestBody: jsonRequest(object({ requestId: uuid() }), { requestId: ids.requestId }),
      responses: { '200': redirect, ...problems(...JSON_ERRORS, 401, 403, 404, 'conflict') },
    },
  },
  '/oauth/interaction/{uid}/deny': {
    post: {
      operationId: 'consentDeny',
      summary: 'The person did not share: the app gets access_denied',
      parameters: [uid],
      responses: { '200': redirect, ...problems(404) },
    },
  },
  '/oauth/interaction/{uid}/partner-sign-in': {
    post: {
      operationId: 'partnerSignInStart',
      summary: '“Continue with <organization>”: where the browser goes to sign in at the organization’s identity provider',
      description:
        'Sets a short-lived cookie binding the sign-in to this browser; the provider is asked with prompt=none first, so a person ' +
        'signed in there comes straight back.',
      parameters: [uid],
      responses: { '200': redirect, ...problems(403, 404, 503) },
    },
  },
  '/oauth/partner-sign-in/complete': {
    post: {
      operationId: 'partnerSignInComplete',
      summary: 'The provider sent the person back: signs them in, asks the provider again, or asks for an address to link',
      description:
        'Called by the page at /oauth/partner-sign-in/callback (the redirect URI registered at the provider) with the query it ' +
        'was reached with, and the cookie set at the start. Signed in, the session is set as the pages’ cookie.',
      requestBody: jsonRequest(object({ callback: { type: 'string', maxLength: 8192 } }), {
        callback: 'code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj&iss=https%3A%2F%2Fid.acme.example',
      }),
      responses: {
        '200': jsonAnswer(
          'Where to go next (signedIn: the session cookie is set), or, on a first sign-in, the address to link with its code',
          {
            oneOf: [
              exactly({ redirectTo: { type: 'string' }, signedIn: { type: 'boolean' } }),
              exactly({ link: exactly({ organization: { type: 'string' }, email: { type: ['string', 'null'] } }) }),
            ],
          },
          { link: { organization: 'Acme Bank', email: 'ann@acme.example' } },
        ),
        ...problems(...JSON_ERRORS, 403, 404, 503),
      },
    },
  },
  '/oauth/partner-sign-in/link': {
    post: {
      operationId: 'partnerSignInLink',
      summary: 'A first sign-in: the code mailed to the address signs the person in and links the provider’s identity to that account',
      description: 'The code is POST /auth/send-otp’s, with its limits; the link is made only once the code checked out.',
      requestBody: jsonRequest(object({ email: { type: 'string', maxLength: 320 }, code: { type: 'string', maxLength: 64 } }), {
        email: 'ann@acme.example',
        code: '123456',
      }),
      responses: {
        '200': jsonAnswer(
          'Signed in (the session cookie is set): back to the authorization',
          exactly({ redirectTo: { type: 'string' }, signedIn: { type: 'boolean' } }),
          { redirectTo: '/oauth/interaction/dQw4w9WgXcQ-5mJ0eXkz1eQ7u0h3Z1bD2cQ4n8Pq', signedIn: true },
        ),
        ...problems(...JSON_ERRORS, 'invalid_email', 'invalid_code', 403, 404, 409, 'too_many_attempts'),
      },
    },
  },
  '/oauth/partner-sign-in/jwks': {
    get: {
      operationId: 'partnerSignInJwks',
      summary: 'The public key the service authenticates to organizations’ identity providers with (private_key_jwt)',
      responses: {
        '200': jsonAnswer('A JWK Set of one Ed25519 key', exactly({ keys: arrayOf(freeForm('a public JWK')) }), {
          keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'q3S96EYJL87XNr9ifZ9qIcr4sXK_OrjXYA1JQC-5o4U', kid: 'k1', alg: 'Ed25519', use: 'sig' }],
        }),
      },
    },
  },
  '/partner/v1/connection': {
    get: {
      operationId: 'partnerConnection',
      summary: 'The connection the app’s grant opened: the request and its items, records by alias',
      security: asApp,
      responses: {
        '200': jsonAnswer(
          'The connection',
          exactly({ request: ref('Request'), manifestName: { type: 'string' }, items: arrayOf(ref('Item')) }),
          { request: { ...requestExample, initiatedBy: 'recipient', initiatingClientId: ids.clientId }, manifestName: 'KYC', items: [] },
        ),
        ...problems(401),
      },
    },
  },
  '/partner/v1/records/{resourceId}': {
    get: {
      operationId: 'partnerRecord',
      summary: 'The current version of a record granted on the connection; the read is a receipt on the person’s side',
      security: asApp,
      parameters: [pathParam('resourceId', 'A record granted on the connection', uuid())],
      responses: {
        '200': jsonAnswer(
          'The record',
          exactly({
            resourceId: uuid(),
            version: { type: 'integer', minimum: 1 },
            name: { type: 'string' },
            schemaRef: { type: ['string', 'null'], format: 'uri' },
            data: freeForm('the document; for a file its label, fileName, mimeType and fileSize'),
            participant: ref('Participant'),
          }),
          {
            resourceId: ids.resourceId,
            version: 2,
            name: 'PersonFullName',
            schemaRef: 'https://share.example.com/schemas/core/PersonFullName.json',
            data: { givenName: 'Ann', familyName: 'Example' },
            participant: null,
          },
        ),
        ...problems(401, 404, 'participant_ineligible', 'adoption_refused'),
      },
    },
  },
});
