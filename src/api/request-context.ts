import type { Request } from 'express';
import type { Actor, EventContext } from '../events/envelope.js';

/** What every request carries from the edge to the events it causes and the logs it writes. */
export type RequestContext = {
  /** This request: honoured from X-Request-Id when sane, else a fresh UUID. */
  readonly requestId: string;
  /** The user-visible operation this request belongs to (X-Correlation-Id, else the request id). */
  readonly correlationId: string;
};

declare global {
  namespace Express {
    interface Locals {
      /** Set by the request-ids middleware before any route runs. */
      requestContext?: RequestContext;
      /** An unexpected error answered 500: logged with this request's line only, never sent. */
      requestError?: Error;
    }
  }
}

export function requestContext(req: Request): RequestContext {
  const context = req.res?.locals.requestContext;
  // Only a route mounted outside createApp could miss it: a wiring bug, not a client's fault.
  if (!context) throw new Error('request context missing: the request-ids middleware did not run');
  return context;
}

/**
 * The metadata a command puts on the events of this request. The request is the cause: its id
 * is the causation id, so an event can be traced back to the HTTP call (and its log lines).
 */
export function eventContext(req: Request, actor: Actor, now: Date = new Date()): EventContext {
  const { requestId, correlationId } = requestContext(req);
  return { occurredAt: now.toISOString(), actor, correlationId, causationId: requestId };
}
