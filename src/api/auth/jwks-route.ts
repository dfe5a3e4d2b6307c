import { Router } from 'express';
import type { PublicJwk } from '../../identity/keys/index.js';

/** R-TOK-02: the public keys, so any JOSE library can verify our tokens. */
export function jwksRoute(jwks: { readonly keys: readonly PublicJwk[] }): Router {
  const router = Router();
  router.get('/.well-known/jwks.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(jwks);
  });
  return router;
}
