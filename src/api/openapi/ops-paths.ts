import { DOCS_FILES } from './docs-page.js';
import { jwk, readinessChecks } from './examples.js';
import {
  arrayOf,
  asUser,
  exactly,
  freeObject,
  jsonAnswer,
  object,
  pathParam,
  problems,
  ref,
  tagged,
  text,
  type OpenApiObject,
} from './components.js';

const textAnswer = (description: string, type: string, example: string) => ({
  description,
  content: { [type]: { schema: { type: 'string' }, example } },
});

const graphqlResponse: OpenApiObject = {
  type: 'object',
  description: 'A GraphQL response: data, errors, or both',
  properties: {
    data: { ...freeObject('what the query selected, shaped by it; null when it failed'), type: ['object', 'null'] },
    errors: arrayOf(ref('GraphqlError')),
  },
  additionalProperties: false,
};
const graphqlExample = { data: { user: { me: { email: 'ann@example.com' } } } };

/** Public routes of operations and discovery, and the GraphQL endpoint (R-OPS-*, R-TOK-02, R-SCH-13, R-GQL-01, R-DOCS-*). */
export const opsPaths = tagged('Operations and discovery', {
  '/healthz': {
    get: {
      operationId: 'liveness',
      summary: 'Liveness',
      responses: { '200': jsonAnswer('The process answers', exactly({ status: { const: 'ok' } }), { status: 'ok' }), ...problems() },
    },
  },
  '/readyz': {
    get: {
      operationId: 'readiness',
      summary: 'Readiness: database, event store, projections, queues',
      responses: {
        '200': jsonAnswer('Ready', exactly({ status: { const: 'ready' }, checks: ref('ReadinessChecks') }), {
          status: 'ready',
          checks: readinessChecks,
        }),
        ...problems('not_ready'),
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics; with METRICS_TOKEN set, only for Authorization: Bearer <METRICS_TOKEN>; in production without it, 404',
      responses: {
        '200': textAnswer('Exposition format', 'text/plain', '# TYPE http_requests_total counter\nhttp_requests_total 42\n'),
        ...problems('unauthenticated', 404),
      },
    },
  },
  '/.well-known/jwks.json': {
    get: {
      operationId: 'jwks',
      summary: 'The public keys that verify our tokens',
      responses: { '200': jsonAnswer('A JWK set', exactly({ keys: arrayOf(ref('Jwk')) }), { keys: [jwk] }), ...problems() },
    },
  },
  '/schemas/core': {
    get: {
      operationId: 'listCoreSchemas',
      summary: 'The built-in schemas',
      responses: {
        '200': jsonAnswer(
          'Their names and ids',
          exactly({ schemas: arrayOf(exactly({ name: { type: 'string' }, id: { type: 'string', format: 'uri' } })) }),
          { schemas: [{ name: 'PersonFullName', id: 'https://dss.example.com/schemas/core/PersonFullName.json' }] },
        ),
        ...problems(),
      },
    },
  },
  '/schemas/core/{file}': {
    get: {
      operationId: 'getCoreSchema',
      summary: 'One built-in schema',
      parameters: [pathParam('file', 'The schema’s name with .json, as listed by /schemas/core')],
      responses: {
        '200': {
          description: 'The JSON Schema',
          content: {
            'application/schema+json': {
              schema: freeObject('a JSON Schema (draft 2020-12)'),
              example: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
            },
          },
        },
        ...problems(404),
      },
    },
  },
  '/problems/{code}': {
    get: {
      operationId: 'problemPage',
      summary: 'What a problem’s `type` means and how to fix it',
      parameters: [pathParam('code', 'A problem’s code, as its `type` URI ends')],
      responses: { '200': textAnswer('A page for people', 'text/html', '<!doctype html>…'), ...problems(404) },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'openApiDocument',
      summary: 'This document',
      responses: {
        '200': jsonAnswer(
          'OpenAPI 3.1',
          {
            type: 'object',
            required: ['openapi', 'info', 'paths', 'components'],
            properties: {
              openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
              info: freeObject('title, version, description'),
              paths: freeObject('every operation, by path and method'),
              components: freeObject('the shared shapes, answers and security schemes'),
            },
          },
          { openapi: '3.1.0', info: { title: 'Data-sharing service', version: '1' }, paths: {}, components: {} },
        ),
        ...problems(),
      },
    },
  },
  '/docs': {
    get: {
      operationId: 'apiReference',
      summary: 'This document rendered for people (Swagger UI, served by the service)',
      responses: { '200': textAnswer('A page for people', 'text/html', '<!doctype html>…'), ...problems() },
    },
  },
  '/docs/{file}': {
    get: {
      operationId: 'apiReferenceFile',
      summary: 'A script or style sheet of the rendered reference',
      parameters: [pathParam('file', 'One of the page’s files', { type: 'string', enum: Object.keys(DOCS_FILES) })],
      responses: {
        '200': {
          description: 'The file',
          content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } },
        },
        ...problems(404),
      },
    },
  },
  '/graphql/schema.graphql': {
    get: {
      operationId: 'graphqlSchema',
      summary: 'The GraphQL schema the service executes, as SDL',
      responses: { '200': textAnswer('GraphQL SDL', 'text/plain', 'type Query {\n  user: UserQuery\n}\n'), ...problems() },
    },
  },
  '/graphql': {
    post: {
      operationId: 'graphql',
      summary: 'GraphQL over HTTP; a missing or refused token is a 401 problem before GraphQL runs',
      security: asUser,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: object(
              {
                query: text(1_000_000),
                variables: { ...freeObject('the variables the query declares, by name'), type: ['object', 'null'] },
                operationName: { type: ['string', 'null'] },
              },
              ['query'],
            ),
            example: { query: '{ user { me { email } } }' },
          },
        },
      },
      responses: {
        '200': {
          description: 'A GraphQL response (errors inside carry extensions.code)',
          content: {
            'application/graphql-response+json': { schema: graphqlResponse, example: graphqlExample },
            'application/json': { schema: graphqlResponse, example: graphqlExample },
          },
        },
        ...problems(400, 401, 413, 415),
      },
    },
    get: {
      operationId: 'graphqlOtherMethod',
      summary: 'Any method but POST: refused, GraphQL is served with POST',
      responses: problems(400),
    },
  },
});
