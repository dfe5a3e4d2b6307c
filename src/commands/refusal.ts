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
  | 'participant_ineligible'
  | 'adoption_refused'
  | 'version_conflict'
  | 'org_sealed'
  | 'unsupported_item'
  // Documents (R-DOC-05, R-SCH-07): GraphQL errors with their own extensions.code.
  | 'no_schema_definition'
  | 'both_schema_definitions'
  | 'schema_not_found'
  | 'schema_invalid'
  | 'data_invalid'
  | 'document_schema_exists';

/**
 * What the transport answers, never a command: a body too large or of another media type, a read
 * model stalled on an event (R-LIM-06: the command's events are in the log, it cannot show them),
 * the database out of reach. Kept out of RefusalCode, so no decider can answer one.
 */
export type TransportCode = 'payload_too_large' | 'unsupported_media_type' | 'projection_stalled' | 'service_unavailable';

export type Refusal<C extends string = RefusalCode> = {
  readonly kind: 'refusal';
  readonly code: C;
  readonly message: string;
  /** Seconds, for rate_limited and too_many_attempts (the Retry-After header). */
  readonly retryAfter?: number;
  /** Machine-readable details (for data_invalid: the failures with their instance paths). */
  readonly details?: Readonly<Record<string, unknown>>;
};

export function refuse(code: RefusalCode, message: string, retryAfter?: number): Refusal {
  return retryAfter === undefined ? { kind: 'refusal', code, message } : { kind: 'refusal', code, message, retryAfter };
}

/** An answer of the transport's own (TransportCode). */
export type TransportRefusal = Refusal<TransportCode>;

export function refuseTransport(code: TransportCode, message: string, retryAfter?: number): TransportRefusal {
  return retryAfter === undefined ? { kind: 'refusal', code, message } : { kind: 'refusal', code, message, retryAfter };
}

/** Any answer the API sends as a problem: a command's refusal or the transport's. */
export type AnyRefusal = Refusal | TransportRefusal;

export function refuseWith(code: RefusalCode, message: string, details: Readonly<Record<string, unknown>>): Refusal {
  return { kind: 'refusal', code, message, details };
}

export function isRefusal(value: unknown): value is Refusal {
  return isAnyRefusal(value) && !TRANSPORT_CODES.has(value.code);
}

const TRANSPORT_CODES: ReadonlySet<string> = new Set<TransportCode>([
  'payload_too_large',
  'unsupported_media_type',
  'projection_stalled',
  'service_unavailable',
]);

/** A command's refusal or the transport's: what the API answers as a problem. */
export function isAnyRefusal(value: unknown): value is AnyRefusal {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'refusal';
}
