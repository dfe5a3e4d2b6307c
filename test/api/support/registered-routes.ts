import type { Express } from 'express';

/** What express 5 (router 2) keeps of a layer: a route, or a nested router's own stack. */
type Layer = {
  readonly rawPath?: unknown;
  readonly route?: { readonly path: unknown; readonly methods: Readonly<Record<string, boolean>> };
  readonly handle?: { readonly stack?: readonly Layer[] };
};

/** One method on one path, in OpenAPI's spelling: `GET /vault/files/{fileId}`; `ALL` for router.all(). */
export type RegisteredRoute = { readonly method: string; readonly path: string };

/** `:param` becomes `{param}`; any other pattern (wildcards, optionals, regexps) is a route this walker cannot name. */
function openApiPath(pattern: unknown): string {
  if (typeof pattern !== 'string') throw new Error(`a route with a non-string path: ${String(pattern)}`);
  if (/[*?(){}]/.test(pattern)) throw new Error(`a route pattern the document cannot name: ${pattern}`);
  return pattern.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function walk(stack: readonly Layer[], prefix: string): RegisteredRoute[] {
  return stack.flatMap((layer): RegisteredRoute[] => {
    if (layer.route) {
      const path = prefix + openApiPath(layer.route.path);
      return Object.keys(layer.route.methods).map((m) => ({ method: m === '_all' ? 'ALL' : m.toUpperCase(), path }));
    }
    const nested = layer.handle?.stack;
    if (!nested) return [];
    // A router mounted at a path adds it before its own routes; app.use(router) mounts it at '/'.
    const mount = layer.rawPath === '/' || layer.rawPath === undefined ? '' : openApiPath(layer.rawPath);
    return walk(nested, prefix + mount);
  });
}

/** Every route the app registered, through nested routers, as express matches them. */
export function registeredRoutes(app: Express): RegisteredRoute[] {
  const router = (app as unknown as { readonly router: { readonly stack: readonly Layer[] } }).router;
  return walk(router.stack, '');
}
