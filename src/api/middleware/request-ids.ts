import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/** A caller's id goes into logs and event metadata, so only short plain tokens are taken as they are. */
const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

function sane(value: string | undefined): string | null {
  return value !== undefined && SANE_ID.test(value) ? value : null;
}

/**
 * Gives every request its request id and correlation id (honouring sane incoming ones) and echoes
 * both, so a client can quote them and a proxy's ids carry through to our logs and events.
 */
export function requestIds(): RequestHandler {
  return (req, res, next) => {
    const requestId = sane(req.get('x-request-id')) ?? randomUUID();
    const correlationId = sane(req.get('x-correlation-id')) ?? requestId;
    res.locals.requestContext = { requestId, correlationId };
    res.set('X-Request-Id', requestId);
    res.set('X-Correlation-Id', correlationId);
    next();
  };
}
