import type { Request, RequestHandler } from 'express';
import type { Logger } from '../../logger.js';
import { safeError } from '../../logger.js';
import { routeTemplate } from './route-template.js';

/** Probes hit these every few seconds; their failures are logged by the checks themselves. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The path as logged: no query string (file names, filters) and no segment that could be an
 * email address (PUT /org/v1/members/{email}), so personal data never reaches the logs.
 */
export function loggablePath(req: Request): string {
  return req.path
    .split('/')
    .map((segment) => (/@|%40/i.test(segment) ? '[redacted]' : segment))
    .join('/');
}

/**
 * One line per request with its request and correlation ids, method, route template, status and
 * time: info when answered, error when it failed (a 5xx, an unexpected error, or a response cut
 * off). Headers and bodies are never logged: they carry tokens, emails and one-time codes.
 * Nothing is built for a line the level drops: pino-http made two or three child loggers per
 * request even at warn, 5% of the service's CPU under load (docs/decisions.md).
 */
export function httpLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (QUIET_PATHS.has(req.path)) return next();
    const started = performance.now();
    res.once('close', () => {
      const err = res.locals.requestError;
      const failed = err !== undefined || res.statusCode >= 500 || !res.writableFinished;
      const level = failed ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const context = res.locals.requestContext;
      const line = {
        requestId: context?.requestId,
        correlationId: context?.correlationId,
        req: { method: req.method, path: loggablePath(req) },
        res: { statusCode: res.statusCode },
        responseTime: Math.round(performance.now() - started),
        route: routeTemplate(req),
      };
      if (!failed) return logger.info(line, 'request completed');
      const cause = err ?? new Error(res.writableFinished ? `failed with status code ${res.statusCode}` : 'response cut off');
      logger.error({ ...line, err: safeError(cause) }, 'request failed');
    });
    next();
  };
}
