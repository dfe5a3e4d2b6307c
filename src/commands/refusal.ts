/**
 * A command's "no": a value, never an exception, carrying the spec's code. The API layer turns
 * it into an RFC 9457 problem (REST) or a GraphQL error through one table (src/api/refusals.ts).
 */
export type RefusalCode =
  | 'invalid_request'
  | 'invalid_email'
  | 'invalid_code'
  | 'rate_limited'
  | 'too_many_attempts'
  | 'email_unavailable'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'participant_ineligible'
  | 'adoption_refused'
  | 'version_conflict'
  | 'org_sealed'
  | 'unsupported_item'
  // R-LIM-06: the command's events are in the log, but a read model it needs cannot show them.
  | 'projection_stalled'
  | 'service_unavailable'
  // Documents (R-DOC-05, R-SCH-07): GraphQL errors with their own extensions.code.
  | 'no_schema_definition'
  | 'both_schema_definitions'
  | 'schema_not_found'
  | 'schema_invalid'
  | 'data_invalid'
  | 'document_schema_exists';

export type Refusal = {
  readonly kind: 'refusal';
  readonly code: RefusalCode;
  readonly message: string;
  /** Seconds, for rate_limited and too_many_attempts (the Retry-After header). */
  readonly retryAfter?: number;
  /** Machine-readable details (for data_invalid: the failures with their instance paths). */
  readonly details?: Readonly<Record<string, unknown>>;
};

export function refuse(code: RefusalCode, message: string, retryAfter?: number): Refusal {
  return retryAfter === undefined ? { kind: 'refusal', code, message } : { kind: 'refusal', code, message, retryAfter };
}

export function refuseWith(code: RefusalCode, message: string, details: Readonly<Record<string, unknown>>): Refusal {
  return { kind: 'refusal', code, message, details };
}

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'refusal';
}
