/** An OpenAPI 3.1 object: plain JSON, as it is served. */
export type OpenApiObject = { readonly [key: string]: unknown };

/** The shared shapes under components.schemas (schemas.ts defines each), named as a generated client names their types. */
export type SchemaName =
  | 'Problem'
  | 'ReadinessChecks'
  | 'ReadinessCheck'
  | 'Jwk'
  | 'Organization'
  | 'Membership'
  | 'MemberToken'
  | 'Member'
  | 'App'
  | 'KeyState'
  | 'Slot'
  | 'Manifest'
  | 'Request'
  | 'Participant'
  | 'RecordEntry'
  | 'Item'
  | 'RequestDetail'
  | 'Adoption'
  | 'Skipped'
  | 'Copy'
  | 'OrgFile'
  | 'OrgFileVersion'
  | 'ProposalSummary'
  | 'Proposal'
  | 'Candidate'
  | 'HistoryEntry'
  | 'ConsentReceipt'
  | 'FileVersion'
  | 'GraphqlError'
  | 'FeedEvent';

/** A `$ref` to a shared shape: a generator names its type after it (docs/decisions.md, "API description"). */
export const ref = (name: SchemaName): OpenApiObject => ({ $ref: `#/components/schemas/${name}` });

/** A request body's object: every field required unless listed otherwise; jsonRequest() closes it. */
export function object(properties: Record<string, OpenApiObject>, required: readonly string[] = Object.keys(properties)): OpenApiObject {
  return { type: 'object', required, properties };
}

/** An answer's object, closed: the service builds it field by field and never adds one (docs/decisions.md, "API description"). */
export function exactly(properties: Record<string, OpenApiObject>, optional: readonly string[] = []): OpenApiObject {
  return {
    type: 'object',
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    properties,
    additionalProperties: false,
  };
}

/** Any JSON value, said so (test/api/openapi-typed.test.ts holds every untyped schema to this). */
export const freeForm = (description: string): OpenApiObject => ({ description: `Free-form JSON: ${description}` });

/** Any JSON object, said so. */
export const freeObject = (description: string): OpenApiObject => ({
  type: 'object',
  additionalProperties: true,
  description: `Free-form JSON object: ${description}`,
});

export const text = (maxLength: number, extra: OpenApiObject = {}): OpenApiObject => ({
  type: 'string',
  minLength: 1,
  maxLength,
  ...extra,
});

export const uuid = (description?: string): OpenApiObject => ({
  type: 'string',
  format: 'uuid',
  ...(description ? { description } : {}),
});
export const timestamp = (description?: string): OpenApiObject => ({
  type: 'string',
  format: 'date-time',
  ...(description ? { description } : {}),
});
export const arrayOf = (items: OpenApiObject, description?: string): OpenApiObject => ({
  type: 'array',
  items,
  ...(description ? { description } : {}),
});
