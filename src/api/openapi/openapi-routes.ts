import { Router } from 'express';
import { schemaSdl } from '../graphql/graphql-route.js';
import { problemPages } from '../problem-pages.js';
import { openApiDocument } from './document.js';

/** Public: the REST surface as OpenAPI 3.1, the GraphQL schema as SDL and a page per problem type (R-DOCS-01, R-DOCS-02, R-DOCS-04). */
export function openApiRoutes(): Router {
  const router = Router();
  router.use(problemPages());
  const document = JSON.stringify(openApiDocument);
  router.get('/openapi.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').type('application/json').send(document);
  });
  router.get('/graphql/schema.graphql', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').type('text/plain').send(schemaSdl);
  });
  return router;
}
