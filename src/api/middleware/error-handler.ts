import type { ErrorRequestHandler } from 'express';
import { isAnyRefusal, refuse, refuseTransport, type AnyRefusal } from '../../commands/refusal.js';
import { sendProblem } from '../problems.js';
import { refusalForError, sendRefusal } from '../refusals.js';

/** Body-parser's error types, answered in our own words (its messages quote the input). */
const BODY_ERRORS: Readonly<Record<string, AnyRefusal>> = {
  'entity.parse.failed': refuse('invalid_request', 'the body is not valid JSON'),
  'entity.too.large': refuseTransport('payload_too_large', 'the request body is too large (JSON bodies: at most 1 MiB)'),
  'charset.unsupported': refuseTransport('unsupported_media_type', 'JSON bodies must be UTF-8'),
  'encoding.unsupported': refuseTransport('unsupported_media_type', 'unsupported Content-Encoding'),
  'request.aborted': refuse('invalid_request', 'the request body was cut off'),
  'request.size.invalid': refuse('invalid_request', 'the body does not match its Content-Length'),
};

const PATH_NOT_UTF8 = refuse('invalid_request', 'a path segment is not percent-encoded UTF-8');

const NOT_UNDERSTOOD = 'the request could not be understood';
const BY_STATUS: Readonly<Record<number, AnyRefusal>> = {
  400: refuse('invalid_request', NOT_UNDERSTOOD),
  401: refuse('unauthenticated', NOT_UNDERSTOOD),
  403: refuse('forbidden', NOT_UNDERSTOOD),
  404: refuse('not_found', NOT_UNDERSTOOD),
  409: refuse('conflict', NOT_UNDERSTOOD),
  413: refuseTransport('payload_too_large', NOT_UNDERSTOOD),
  415: refuseTransport('unsupported_media_type', NOT_UNDERSTOOD),
};

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/**
 * A client's mistake reported by express or its parsers: only http-errors marked `expose`
 * (4xx from body-parser and the router) count; any other error with a `status` might be an
 * upstream's answer and is ours to fix, not the client's.
 */
function clientRefusal(err: unknown): AnyRefusal | null {
  if (isAnyRefusal(err)) return err;
  // The router's own 400 (not marked `expose`): a path segment that is not percent-encoded UTF-8 (R-FUZZ-02).
  if (err instanceof URIError && field(err, 'status') === 400) return PATH_NOT_UTF8;
  const type = field(err, 'type');
  if (typeof type === 'string' && BODY_ERRORS[type]) return BODY_ERRORS[type];
  const status = field(err, 'status');
  if (field(err, 'expose') === true && typeof status === 'number' && status >= 400 && status < 500) {
    return BY_STATUS[status] ?? refuse('invalid_request', NOT_UNDERSTOOD);
  }
  return null;
}

/**
 * Every error becomes problem+json. An unexpected one answers 500 with a generic detail: its
 * message, stack, SQL or paths go only to the log line of this request (httpLogger logs it
 * with the request id), never to the client.
 */
export function problemErrorHandler(): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    const refusal = clientRefusal(err) ?? refusalForError(err);
    if (refusal && !res.headersSent) {
      sendRefusal(res, refusal);
      return;
    }
    res.locals.requestError = err instanceof Error ? err : new Error(`non-error thrown: ${typeof err}`);
    if (res.headersSent) {
      // Part of a response is on the wire: cutting the connection is the only honest signal left.
      res.destroy();
      return;
    }
    sendProblem(res, {
      status: 500,
      code: 'internal_error',
      title: 'Internal server error',
      detail: 'the service failed to handle this request; quote the request id when reporting it',
    });
  };
}
