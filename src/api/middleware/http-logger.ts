import type { Request, RequestHandler, Response } from 'express';
import { pinoHttp } from 'pino-http';
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
 * time. Headers and bodies are never logged: they carry tokens, emails and one-time codes.
 */
export function httpLogger(logger: Logger): RequestHandler {
  const middleware = pinoHttp<Request, Response>({
    logger,
    wrapSerializers: false,
    genReqId: (_req, res) => res.locals.requestContext?.requestId ?? 'unknown',
    customProps: (_req, res) => ({
      requestId: res.locals.requestContext?.requestId,
      correlationId: res.locals.requestContext?.correlationId,
    }),
    serializers: {
      req: (req: Request) => ({ method: req.method, path: loggablePath(req) }),
      res: (res: Response) => ({ statusCode: res.statusCode }),
      err: safeError,
    },
    autoLogging: { ignore: (req) => QUIET_PATHS.has(req.path) },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessObject: (req, _res, fields: object) => ({ ...fields, route: routeTemplate(req) }),
    customErrorObject: (req, _res, _err, fields: object) => ({ ...fields, route: routeTemplate(req) }),
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
  });
  return (req, res, next) => middleware(req, res, next);
}
