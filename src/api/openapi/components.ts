import type { Permission } from '../../events/organization-events.js';
import { SERVICE_PROBLEMS, type ProblemCode } from '../problems.js';
import { refusals } from '../refusals.js';
import { schemas } from './schemas.js';
import { ref, type OpenApiObject } from './shapes.js';

export { arrayOf, exactly, freeForm, freeObject, object, ref, text, timestamp, uuid, type OpenApiObject } from './shapes.js';

/** A problem code's status: the refusal table's (src/api/refusals.ts), or the service's own (src/api/problems.ts). */
const statusOf = (code: ProblemCode): number =>
  code in refusals ? refusals[code as keyof typeof refusals].status : SERVICE_PROBLEMS[code as keyof typeof SERVICE_PROBLEMS].status;

/**
 * What each status means, and the code it carries when a route names none of that status: the one
 * its guard or the transport answers (a token check 401 unauthenticated, a permission 403 forbidden...).
 */
const USUAL: Readonly<Record<number, { readonly description: string; readonly code: ProblemCode }>> = {
  400: { description: 'The request is malformed or a field is invalid', code: 'invalid_request' },
  401: { description: 'No valid token (or code) came along', code: 'unauthenticated' },
  403: { description: 'The caller may not do this', code: 'forbidden' },
  404: { description: 'No such resource, or not the caller’s', code: 'not_found' },
  409: { description: 'A conflict with the current state', code: 'conflict' },
  413: { description: 'The body is too large', code: 'payload_too_large' },
  415: { description: 'The body is of a type this route does not take', code: 'unsupported_media_type' },
  423: { description: 'The organization’s key is sealed', code: 'org_sealed' },
  429: { description: 'Too many requests; Retry-After says when to try again', code: 'rate_limited' },
  500: { description: 'The service failed; quote the request id', code: 'internal_error' },
  503: { description: 'A dependency is unavailable or a read model is stalled', code: 'service_unavailable' },
};

/**
 * One problem answer: the shared Problem with `status` and `code` narrowed to what this route answers
 * with this status, so a generated client types the codes it must handle (docs/decisions.md, "API description").
 */
function problemAnswer(status: number, codes: readonly ProblemCode[]): OpenApiObject {
  return {
    description: `${USUAL[status]!.description}: ${codes.join(', ')}`,
    ...(status === 429 ? { headers: { 'Retry-After': { required: true, schema: { type: 'integer', minimum: 1 } } } } : {}),
    content: {
      'application/problem+json': {
        schema: {
          allOf: [ref('Problem')],
          required: ['status', 'code'],
          properties: { status: { const: status }, code: { type: 'string', enum: codes } },
        },
      },
    },
  };
}

/**
 * The error answers of an operation, each a problem+json body naming the codes it can carry. A status
 * stands for its usual code, a code for itself under its status; a bare 401 marks a route that takes a
 * token, which also answers 429 of fair use (R-LIM-12) and 503 when the session store is out of reach.
 */
export function problems(...answers: ReadonlyArray<number | ProblemCode>): Record<string, OpenApiObject> {
  const all = answers.includes(401) ? [...answers, 429, 503, 500] : [...answers, 500];
  const byStatus = new Map<number, Set<ProblemCode>>();
  for (const answer of all) {
    const [status, code] = typeof answer === 'number' ? [answer, USUAL[answer]!.code] : [statusOf(answer), answer];
    byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => {
        const sorted = [...codes].sort();
        const usual = sorted.length === 1 && sorted[0] === USUAL[status]!.code;
        return [String(status), usual ? { $ref: `#/components/responses/Problem${status}` } : problemAnswer(status, sorted)];
      }),
  );
}

export const components = {
  schemas,
  responses: Object.fromEntries(
    Object.entries(USUAL).map(([status, { code }]) => [`Problem${status}`, problemAnswer(Number(status), [code])]),
  ),
  securitySchemes: {
    userToken: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'A user access token (aud "user") from /auth/verify-otp.',
    },
    orgToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A member token (aud "org") from POST /org/v1/token.' },
    partnerToken: {
      type: 'http',
      scheme: 'DPoP',
      bearerFormat: 'JWT',
      description:
        'An app’s access token from /oauth/token, sent as `Authorization: DPoP <token>` with a DPoP proof (RFC 9449; docs/oauth.md).',
    },
  },
};

/** A path parameter, always a string: ids are looked up, and an unknown one is 404. */
export function pathParam(name: string, description: string, schema: OpenApiObject = { type: 'string' }): OpenApiObject {
  return { name, in: 'path', required: true, description, schema };
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
 * Inline, never a `$ref`: known-input.ts and the hostile-input suite read its fields from here.
 */
export function jsonRequest(schema: OpenApiObject, example?: unknown): OpenApiObject {
  return { required: true, content: { 'application/json': { schema: closed(schema), ...exampled(example) } } };
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

const exampled = (example: unknown) => (example === undefined ? {} : { example });

/** Raw bytes streamed as they are (uploads): the Content-Type is the file's own. */
export const bytesRequest = {
  required: true,
  content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
};

/** A JSON answer; its example validates against its schema (test/api/openapi-typed.test.ts). */
export function jsonAnswer(description: string, schema: OpenApiObject, example?: unknown): OpenApiObject {
  return { description, content: { 'application/json': { schema, ...exampled(example) } } };
}

export const asUser = [{ userToken: [] }];
/**
 * A member route: an organization token whose membership holds `permission` (OpenAPI 3.1 lets a
 * non-OAuth scheme list the roles it needs). The access matrix (test/api/access) reads it from here.
 */
export const asMember = (permission: Permission): Array<Record<'orgToken', Permission[]>> => [{ orgToken: [permission] }];

/**
 * A member route's errors, in the order of R-ORG-08: 401 unless a live member token, 403 without the
 * permission, 404 for anything not of this organization, 400 for a query parameter or field it does not
 * take (§10.3, known-input.ts), then whatever else the route adds.
 */
export const memberErrors = (...more: ReadonlyArray<number | ProblemCode>): Record<string, OpenApiObject> =>
  problems(401, 403, 404, 400, ...more);

/** Errors of a route behind jsonBody(). */
export const JSON_ERRORS = [400, 413, 415] as const;

/** Errors of a route that appends: its read model may be stalled on the event (R-LIM-06). */
export const APPENDS = [503, 'projection_stalled'] as const;

/** Operations grouped under a tag, the section a rendered reference shows them in (GET /docs). */
export function tagged(tag: string, paths: Record<string, Record<string, OpenApiObject>>): Record<string, Record<string, OpenApiObject>> {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(Object.entries(item).map(([method, op]) => [method, { tags: [tag], ...op }])),
    ]),
  );
}
