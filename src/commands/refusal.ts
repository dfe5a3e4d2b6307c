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
  | 'unsupported_item';

export type Refusal = {
  readonly kind: 'refusal';
  readonly code: RefusalCode;
  readonly message: string;
  /** Seconds, for rate_limited and too_many_attempts (the Retry-After header). */
  readonly retryAfter?: number;
};

export function refuse(code: RefusalCode, message: string, retryAfter?: number): Refusal {
  return retryAfter === undefined ? { kind: 'refusal', code, message } : { kind: 'refusal', code, message, retryAfter };
}

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'refusal';
}
