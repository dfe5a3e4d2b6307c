import type { RequestHandler, Router } from 'express';

/**
 * A router that only requests under `prefix` enter; the others go on at once. Express walks every
 * route of a router mounted without a path, matching each route's pattern, for every request that
 * reaches it, so the GraphQL endpoint, mounted last, would walk every REST route of the organization
 * plane first (docs/performance.md, "How the fast path is built"). The routes keep their full paths, and their case-insensitive matching:
 * the prefix is compared in lower case. The guard shows the router's routes (`stack`) as the
 * router does, to whatever lists the app's routes (the OpenAPI and access tests).
 */
export function underPrefix(prefix: string, router: Router): RequestHandler & Pick<Router, 'stack'> {
  const lower = prefix.toLowerCase();
  const guard: RequestHandler = (req, res, next) => (req.path.toLowerCase().startsWith(lower) ? router(req, res, next) : next());
  return Object.assign(guard, { stack: router.stack });
}
