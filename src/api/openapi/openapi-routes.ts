import { Router } from 'express';
import { schemaSdl } from '../graphql/graphql-route.js';
import { openApiDocument } from './document.js';

/** Public: the REST surface as OpenAPI 3.1 and the GraphQL schema as SDL (R-DOCS-01, R-DOCS-02). */
export function openApiRoutes(): Router {
  const router = Router();
  const document = JSON.stringify(openApiDocument);
  router.get('/openapi.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').type('application/json').send(document);
  });
  router.get('/graphql/schema.graphql', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').type('text/plain').send(schemaSdl);
  });
  return router;
}
