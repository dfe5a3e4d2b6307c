import { Router } from 'express';
import { schemaSdl } from '../graphql/graphql-route.js';
import { problemPages } from '../problem-pages.js';
import { guarded } from '../web/pages.js';
import { DOCS_CSP, DOCS_FILES, DOCS_PAGE } from './docs-page.js';
import { openApiDocument } from './document.js';

/**
 * Public: the REST surface as OpenAPI 3.1, rendered for people at /docs, the GraphQL schema as SDL and
 * a page per problem type (R-DOCS-01, R-DOCS-02, R-DOCS-04, R-DOCS-07).
 */
export function openApiRoutes(): Router {
  const router = Router();
  router.use(problemPages());
  const document = JSON.stringify(openApiDocument);
  router.get('/openapi.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').type('application/json').send(document);
  });
  router.get('/docs', (_req, res) => {
    guarded(res, DOCS_CSP).set('Cache-Control', 'no-cache').type('html').send(DOCS_PAGE);
  });
  router.get('/docs/:file', (req, res, next) => {
    const name = req.params.file;
    // Any other name is the 404 problem of an unknown path.
    const file = Object.hasOwn(DOCS_FILES, name) ? DOCS_FILES[name] : undefined;
    if (!file) return next();
    guarded(res, DOCS_CSP).set('Cache-Control', 'public, max-age=3600').type(file.type);
    if ('text' in file) return void res.send(file.text);
    res.sendFile(file.path, (err) => {
      if (err && !res.headersSent) next(err);
    });
  });
  router.get('/graphql/schema.graphql', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').type('text/plain').send(schemaSdl);
  });
  return router;
}
