import type { Response } from 'express';
import { refuseTransport, type AnyRefusal, type RefusalCode, type TransportCode, type TransportRefusal } from '../commands/refusal.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { ProjectionStalledError } from '../projections/stall.js';
import { bearerChallenge } from './auth/challenge.js';
import { sendProblem } from './problems.js';

/** The GraphQL `extensions.code` values a refusal can become (R-GQL-06). */
export type GraphqlErrorCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'EMAIL_UNAVAILABLE'
  | 'NO_SCHEMA_DEFINITION'
  | 'BOTH_SCHEMA_DEFINITIONS'
  | 'SCHEMA_NOT_FOUND'
  | 'SCHEMA_INVALID'
  | 'DATA_INVALID'
  | 'DOCUMENT_SCHEMA_EXISTS'
  | 'PROJECTION_STALLED'
  | 'SERVICE_UNAVAILABLE';

export type RefusalMapping = { readonly status: number; readonly title: string; readonly graphql: GraphqlErrorCode };

/** The one place a refusal code becomes an HTTP status or a GraphQL code (R-HTTP-02). */
export const refusals: { readonly [C in RefusalCode | TransportCode]: RefusalMapping } = {
  invalid_request: { status: 400, title: 'Invalid request', graphql: 'BAD_USER_INPUT' },
  invalid_email: { status: 400, title: 'Invalid email address', graphql: 'BAD_USER_INPUT' },
  unsupported_item: { status: 400, title: 'Unsupported item', graphql: 'BAD_USER_INPUT' },
  invalid_code: { status: 401, title: 'Invalid code', graphql: 'UNAUTHENTICATED' },
  unauthenticated: { status: 401, title: 'Unauthenticated', graphql: 'UNAUTHENTICATED' },
  forbidden: { status: 403, title: 'Forbidden', graphql: 'FORBIDDEN' },
  participant_ineligible: { status: 403, title: 'Participant ineligible', graphql: 'FORBIDDEN' },
  adoption_refused: { status: 403, title: 'Adoption refused', graphql: 'FORBIDDEN' },
  not_found: { status: 404, title: 'Not found', graphql: 'NOT_FOUND' },
  conflict: { status: 409, title: 'Conflict', graphql: 'CONFLICT' },
  document_schema_exists: { status: 409, title: 'Document schema exists', graphql: 'DOCUMENT_SCHEMA_EXISTS' },
  no_schema_definition: { status: 400, title: 'No schema definition', graphql: 'NO_SCHEMA_DEFINITION' },
  both_schema_definitions: { status: 400, title: 'Both schema definitions', graphql: 'BOTH_SCHEMA_DEFINITIONS' },
  schema_not_found: { status: 400, title: 'Schema not found', graphql: 'SCHEMA_NOT_FOUND' },
  schema_invalid: { status: 400, title: 'Schema invalid', graphql: 'SCHEMA_INVALID' },
  data_invalid: { status: 400, title: 'Data invalid', graphql: 'DATA_INVALID' },
  version_conflict: { status: 409, title: 'Version conflict', graphql: 'CONFLICT' },
  payload_too_large: { status: 413, title: 'Payload too large', graphql: 'BAD_USER_INPUT' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', graphql: 'BAD_USER_INPUT' },
  org_sealed: { status: 423, title: 'Organization key sealed', graphql: 'FORBIDDEN' },
  rate_limited: { status: 429, title: 'Rate limited', graphql: 'RATE_LIMITED' },
  too_many_attempts: { status: 429, title: 'Too many attempts', graphql: 'RATE_LIMITED' },
  email_unavailable: { status: 503, title: 'Email unavailable', graphql: 'EMAIL_UNAVAILABLE' },
  projection_stalled: { status: 503, title: 'Projection stalled', graphql: 'PROJECTION_STALLED' },
  service_unavailable: { status: 503, title: 'Service unavailable', graphql: 'SERVICE_UNAVAILABLE' },
};

/**
 * Answers a refusal as problem+json (R-HTTP-01); every 429 carries Retry-After (R-HTTP-03), and so
 * does a 503 that knows when to try again; every 401 unauthenticated a Bearer challenge (R-TOK-09).
 */
export function sendRefusal(res: Response, refusal: AnyRefusal): void {
  const { status, title } = refusals[refusal.code];
  // A route that answers another scheme's challenge (DPoP on the partner plane) has set it already.
  if (refusal.code === 'unauthenticated' && !res.get('WWW-Authenticate'))
    res.set('WWW-Authenticate', bearerChallenge(res.req.get('authorization'), refusal.message));
  if (status === 429 || (status === 503 && refusal.retryAfter !== undefined)) {
    res.set('Retry-After', String(Math.max(1, Math.ceil(refusal.retryAfter ?? 1))));
  }
  sendProblem(res, { status, code: refusal.code, title, detail: refusal.message });
}

/**
 * An exception from below the commands that is an answer, not a fault: a read model the command
 * waited on is stalled (R-LIM-06), its events already in the log, as the detail says; or the
 * database cannot be reached now (R-REL-01): 503, to be tried again, never a 500 or a hang.
 */
export function refusalForError(err: unknown): TransportRefusal | null {
  if (isDatabaseUnavailable(err)) return refuseTransport('service_unavailable', 'the database cannot be reached now; try again shortly', 1);
  if (err instanceof ProjectionStalledError) {
    return refuseTransport(
      'projection_stalled',
      'the change is recorded, but a read model it needs is stalled on an event it cannot apply and cannot show it yet',
    );
  }
  return null;
}
