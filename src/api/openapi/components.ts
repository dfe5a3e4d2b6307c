import type { Permission } from '../../events/organization-events.js';
import { refusals } from '../refusals.js';

/** An OpenAPI 3.1 object: plain JSON, as it is served. */
export type OpenApiObject = { readonly [key: string]: unknown };

/** The codes a problem can carry: every refusal's (src/api/refusals.ts) and the service's own (src/api/problems.ts). */
const PROBLEM_CODES = [...Object.keys(refusals), 'internal_error', 'not_ready'];

/** RFC 9457 as sendProblem writes it: the five members the contract fixes, the request id, and extensions. */
const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: {
      type: 'string',
      format: 'uri',
      description: 'The kind of problem: the base URL, /problems/, the code; a page that says what it means and how to fix it.',
    },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    code: { type: 'string', enum: PROBLEM_CODES },
    requestId: { type: 'string', description: 'The X-Request-Id of this request, to quote when reporting it.' },
    checks: { type: 'object', description: 'GET /readyz only: each check and its status.' },
  },
};

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'The request is malformed or a field is invalid',
  401: 'No valid token (or code) came along',
  403: 'The caller may not do this',
  404: 'No such resource, or not the caller’s',
  409: 'A conflict with the current state',
  413: 'The body is too large',
  415: 'The body is of a type this route does not take',
  423: 'The organization’s key is sealed',
  429: 'Too many requests; Retry-After says when to try again',
  500: 'The service failed; quote the request id',
  503: 'A dependency is unavailable or a read model is stalled',
};

/** The error answers of an operation, each a problem+json body. */
export function problems(...statuses: readonly number[]): Record<string, OpenApiObject> {
  // Every route that takes a token (it can answer 401) counts against its fair use (R-LIM-12): 429.
  const all = statuses.includes(401) ? [...statuses, 429, 500] : [...statuses, 500];
  return Object.fromEntries([...new Set(all)].sort().map((s) => [String(s), { $ref: `#/components/responses/Problem${s}` }]));
}

export const components = {
  schemas: {
    Problem: problemSchema,
    AnyObject: { type: 'object', additionalProperties: true },
    HistoryEntry: {
      type: 'object',
      required: ['position', 'type', 'occurredAt', 'actor', 'versions'],
      properties: {
        position: { type: 'string' },
        type: { type: 'string' },
        occurredAt: { type: 'string', format: 'date-time' },
        actor: { type: 'string', description: '"member:<email>", "recipient" or "system"' },
        versions: { type: 'object', description: 'sourceVersion, orgVersion, newVersion… as the entry has them' },
      },
    },
  },
  responses: Object.fromEntries(
    Object.entries(STATUS_TEXT).map(([status, description]) => [
      `Problem${status}`,
      {
        description,
        ...(status === '429' ? { headers: { 'Retry-After': { required: true, schema: { type: 'integer', minimum: 1 } } } } : {}),
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      },
    ]),
  ),
  securitySchemes: {
    userToken: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'A user access token (aud "user") from /auth/verify-otp.',
    },
    orgToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A member token (aud "org") from POST /org/v1/token.' },
  },
};

/** A path parameter, always a string: ids are looked up, and an unknown one is 404. */
export function pathParam(name: string, description: string): OpenApiObject {
  return { name, in: 'path', required: true, description, schema: { type: 'string' } };
}

export function queryParam(name: string, description: string, schema: OpenApiObject = { type: 'string' }): OpenApiObject {
  return { name, in: 'query', required: false, description, schema };
}

/** ?version=N: a positive integer; the newest version when absent. */
export const versionQuery = queryParam('version', 'A version number; the newest when absent', {
  type: 'string',
  pattern: '^[1-9][0-9]{0,8}$',
});

/** ?limit=N of a paged list (§10.6): 1 to 500, `fallback` when absent. */
export const limitQuery = (fallback: number): OpenApiObject =>
  queryParam('limit', 'How many entries the page holds', { type: 'integer', minimum: 1, maximum: 500, default: fallback });

/** ?fileName=.. of an upload: required, one name without path separators or control characters. */
export const fileNameQuery = {
  ...queryParam('fileName', 'The file’s name', { type: 'string', minLength: 1, maxLength: 255 }),
  required: true,
};

/**
 * A JSON body as jsonBody() takes it: malformed 400, oversized 413, another type 415, and every
 * object that lists its fields closed (§10.3: a field it does not list is 400, see known-input.ts).
 */
export function jsonRequest(schema: OpenApiObject): OpenApiObject {
  return { required: true, content: { 'application/json': { schema: closed(schema) } } };
}

function closed(schema: OpenApiObject): OpenApiObject {
  const { properties, items } = schema as { properties?: Record<string, OpenApiObject>; items?: OpenApiObject };
  return {
    ...schema,
    ...(properties
      ? {
          properties: Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, closed(s)])),
          additionalProperties: schema.additionalProperties ?? false,
        }
      : {}),
    ...(items ? { items: closed(items) } : {}),
  };
}

/** Raw bytes streamed as they are (uploads): the Content-Type is the file's own. */
export const bytesRequest = {
  required: true,
  content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
};

export function jsonAnswer(description: string, schema: OpenApiObject = { $ref: '#/components/schemas/AnyObject' }): OpenApiObject {
  return { description, content: { 'application/json': { schema } } };
}

export function object(properties: Record<string, OpenApiObject>, required: readonly string[] = Object.keys(properties)): OpenApiObject {
  return { type: 'object', required, properties };
}

export const text = (maxLength: number, extra: OpenApiObject = {}): OpenApiObject => ({
  type: 'string',
  minLength: 1,
  maxLength,
  ...extra,
});

export const asUser = [{ userToken: [] }];
/**
 * A member route: an organization token whose membership holds `permission` (OpenAPI 3.1 lets a
 * non-OAuth scheme list the roles it needs). The access matrix (test/api/access) reads it from here.
 */
export const asMember = (permission: Permission): Array<Record<'orgToken', Permission[]>> => [{ orgToken: [permission] }];

/**
 * A member route's errors, in the order of R-ORG-08: 401 unless a live member token, 403 without the
 * permission, 404 for anything not of this organization, then whatever else the route adds.
 */
export const memberErrors = (...more: readonly number[]): Record<string, OpenApiObject> => problems(401, 403, 404, ...more);

/** Errors of a route behind jsonBody(). */
export const JSON_ERRORS = [400, 413, 415] as const;
