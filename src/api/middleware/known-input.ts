import type { Request, RequestHandler } from 'express';
import { refuse, type Refusal } from '../../commands/refusal.js';
import { openApiDocument } from '../openapi/document.js';
import { sendRefusal } from '../refusals.js';

/** A JSON schema as the OpenAPI document writes a request body: only what names fields matters here. */
type Schema = {
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: unknown;
  readonly items?: Schema;
};
type Parameter = { readonly name: string; readonly in: string };
type Operation = {
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { readonly content: Readonly<Record<string, { readonly schema: Schema }>> };
};

/** What one documented REST operation takes: its query parameters and the shape of its JSON body. */
export type RestOperation = { readonly query: readonly string[]; readonly body: Schema };

/** A route without a JSON body takes no field at all. */
const NO_FIELDS: Schema = { properties: {}, additionalProperties: false };

/** GraphQL is no REST route: its inputs are typed by its schema and checked by GraphQL (input-rules.ts). */
const NOT_REST: ReadonlySet<string> = new Set(['/graphql']);

type Matcher = { readonly method: string; readonly path: RegExp; readonly operation: RestOperation };

/** `{name}` matches one segment; express matches paths case-insensitively, with or without a trailing slash. */
function pathPattern(template: string): RegExp {
  const parts = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]+')}/?$`, 'i');
}

const matchers: readonly Matcher[] = Object.entries(openApiDocument.paths as unknown as Record<string, Record<string, Operation>>)
  .filter(([path]) => !NOT_REST.has(path))
  .flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      path: pathPattern(path),
      operation: {
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        body: op.requestBody?.content['application/json']?.schema ?? NO_FIELDS,
      },
    })),
  );

/** The documented REST operation a request is for, or null (GraphQL, or a path no route serves). */
export function restOperation(req: Request): RestOperation | null {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const path = req.originalUrl.split('?')[0]!;
  return matchers.find((m) => m.method === method && m.path.test(path))?.operation ?? null;
}

/** A name as a detail quotes it: whole unless it is long, and never more than the first 100 characters. */
const quoted = (name: string) => JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name);
const listed = (names: readonly string[]) => (names.length ? `takes ${names.join(', ')}` : 'takes none');

/**
 * §10.3: a query parameter or a body field the route's OpenAPI operation does not define is 400
 * invalid_request naming it, so a misspelt field is never silently dropped. The document is the one
 * list of what a route takes; a body object is closed where its schema says `additionalProperties: false`.
 */
export function unknownInput(req: Request, operation: RestOperation | null = restOperation(req)): Refusal | null {
  if (operation === null) return null;
  const query = Object.keys(req.query as object).find((name) => !operation.query.includes(name));
  if (query !== undefined)
    return refuse('invalid_request', `unknown query parameter ${quoted(query)}: this route ${listed(operation.query)}`);
  return unknownField(req.body, operation.body, '');
}

function unknownField(value: unknown, schema: Schema, path: string): Refusal | null {
  if (Array.isArray(value)) {
    if (!schema.items) return null;
    for (const [i, item] of value.entries()) {
      const refused = unknownField(item, schema.items, `${path}[${i}]`);
      if (refused) return refused;
    }
    return null;
  }
  if (typeof value !== 'object' || value === null || !schema.properties) return null;
  const known = Object.keys(schema.properties);
  for (const [name, item] of Object.entries(value)) {
    const at = path ? `${path}.${name}` : name;
    if (!Object.hasOwn(schema.properties, name)) {
      if (schema.additionalProperties === false)
        return refuse('invalid_request', `unknown field ${quoted(at)}: ${path ? `${path} ` : 'this route '}${listed(known)}`);
      continue;
    }
    const refused = unknownField(item, schema.properties[name]!, at);
    if (refused) return refused;
  }
  return null;
}

/** unknownInput as a step of a route, after its token and id checks (R-ORG-08: 401, 403, 404, then 400). */
export function knownInput(): RequestHandler {
  return (req, res, next) => {
    const refused = unknownInput(req);
    if (refused) return sendRefusal(res, refused);
    next();
  };
}
