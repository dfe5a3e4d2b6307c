import type { Request, RequestHandler } from 'express';

const templates = new WeakMap<Request, string>();

/**
 * Remembers the matched route's template ("/org/v1/members/:email") for metrics and logs.
 * The router assigns req.route when a route matches, while req.baseUrl still names the
 * mount path; by the time the response finishes baseUrl may have been restored to the parent's
 * (an error leaving a sub-router), so the template is captured at assignment.
 */
export function captureRouteTemplate(): RequestHandler {
  return (req, _res, next) => {
    let route: unknown;
    Object.defineProperty(req, 'route', {
      configurable: true,
      enumerable: true,
      get: () => route,
      set: (value: unknown) => {
        route = value;
        const path = typeof value === 'object' && value !== null ? (value as { path?: unknown }).path : undefined;
        if (typeof path === 'string') templates.set(req, `${req.baseUrl}${path}`);
      },
    });
    next();
  };
}

/** The template of the route that handled the request, or null when none matched. */
export function routeTemplate(req: Request): string | null {
  return templates.get(req) ?? null;
}
