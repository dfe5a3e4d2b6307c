import { asUser, jsonAnswer, object, pathParam, problems, text } from './components.js';

const textAnswer = (description: string, type: string) => ({ description, content: { [type]: { schema: { type: 'string' } } } });

/** Public routes of operations and discovery, and the GraphQL endpoint (R-OPS-*, R-TOK-02, R-SCH-13, R-GQL-01). */
export const opsPaths = {
  '/healthz': {
    get: {
      summary: 'Liveness',
      responses: { '200': jsonAnswer('The process answers', object({ status: { const: 'ok' } })), ...problems() },
    },
  },
  '/readyz': {
    get: {
      summary: 'Readiness: database, event store, projections, queues',
      responses: { '200': jsonAnswer('Ready', object({ status: { const: 'ready' }, checks: { type: 'object' } })), ...problems(503) },
    },
  },
  '/metrics': {
    get: {
      summary: 'Prometheus metrics; with METRICS_TOKEN set, only for Authorization: Bearer <METRICS_TOKEN>; in production without it, 404',
      responses: {
        '200': textAnswer('Exposition format', 'text/plain'),
        '401': { $ref: '#/components/responses/Problem401' },
        ...problems(404),
      },
    },
  },
  '/.well-known/jwks.json': {
    get: {
      summary: 'The public keys that verify our tokens',
      responses: { '200': jsonAnswer('A JWK set', object({ keys: { type: 'array', items: { type: 'object' } } })), ...problems() },
    },
  },
  '/schemas/core': {
    get: {
      summary: 'The built-in schemas',
      responses: {
        '200': jsonAnswer(
          'Their names and ids',
          object({ schemas: { type: 'array', items: object({ name: { type: 'string' }, id: { type: 'string' } }) } }),
        ),
        ...problems(),
      },
    },
  },
  '/schemas/core/{file}': {
    get: {
      summary: 'One built-in schema',
      parameters: [pathParam('file', 'The schema’s name with .json, as listed by /schemas/core')],
      responses: {
        '200': { description: 'The JSON Schema', content: { 'application/schema+json': { schema: { type: 'object' } } } },
        ...problems(404),
      },
    },
  },
  '/problems/{code}': {
    get: {
      summary: 'What a problem’s `type` means and how to fix it',
      parameters: [pathParam('code', 'A problem’s code, as its `type` URI ends')],
      responses: { '200': textAnswer('A page for people', 'text/html'), ...problems(404) },
    },
  },
  '/openapi.json': {
    get: { summary: 'This document', responses: { '200': jsonAnswer('OpenAPI 3.1'), ...problems() } },
  },
  '/graphql/schema.graphql': {
    get: {
      summary: 'The GraphQL schema the service executes, as SDL',
      responses: { '200': textAnswer('GraphQL SDL', 'text/plain'), ...problems() },
    },
  },
  '/graphql': {
    post: {
      summary: 'GraphQL over HTTP; a missing or refused token is a 401 problem before GraphQL runs',
      security: asUser,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: object(
              { query: text(1_000_000), variables: { type: ['object', 'null'] }, operationName: { type: ['string', 'null'] } },
              ['query'],
            ),
          },
        },
      },
      responses: {
        '200': {
          description: 'A GraphQL response (errors inside carry extensions.code)',
          content: {
            'application/graphql-response+json': { schema: { type: 'object' } },
            'application/json': { schema: { type: 'object' } },
          },
        },
        ...problems(400, 401, 413, 415),
      },
    },
    get: {
      summary: 'Any method but POST: refused, GraphQL is served with POST',
      responses: problems(400),
    },
  },
};
