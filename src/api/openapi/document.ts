import { authPaths } from './auth-paths.js';
import { compliancePaths } from './compliance-paths.js';
import { eventsPaths } from './events-paths.js';
import { components, ref } from './components.js';
import { opsPaths } from './ops-paths.js';
import { orgPaths } from './org-paths.js';
import { partnerPaths } from './partner-paths.js';
import { requestPaths } from './request-paths.js';
import { vaultPaths } from './vault-paths.js';
import { webhookPaths } from './webhook-paths.js';

/** The REST surface as OpenAPI 3.1 (R-DOCS-01); test/api/openapi.test.ts holds it to the routes express really serves. */
export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Data-sharing service',
    version: '1',
    description:
      'Errors are RFC 9457 problem+json; each error answer names the `code`s it can carry. GraphQL (POST /graphql) is ' +
      'described by GET /graphql/schema.graphql. GET /docs renders this document.',
  },
  paths: {
    ...opsPaths,
    ...authPaths,
    ...orgPaths,
    ...requestPaths,
    ...eventsPaths,
    ...webhookPaths,
    ...compliancePaths,
    ...vaultPaths,
    ...partnerPaths,
  },
  /** What a webhook endpoint receives (R-HOOK-*, docs/webhooks.md): a generator types the receiver's body from it. */
  webhooks: {
    event: {
      post: {
        operationId: 'receiveEvent',
        summary: 'One event of the catalogue, signed per Standard Webhooks',
        description:
          'Headers webhook-id (the event id), webhook-timestamp and webhook-signature (v1,<HMAC-SHA256>); verify them with ' +
          'the secret POST /org/v1/webhooks showed before reading the body. Answer 2xx within 10 seconds; anything else is retried.',
        requestBody: { required: true, content: { 'application/json': { schema: ref('FeedEvent') } } },
        responses: { '2XX': { description: 'Received; the delivery log records the status' } },
      },
    },
  },
  components,
};
