import { Router } from 'express';
import { refuse } from '../commands/refusal.js';
import type { SchemaValidator } from '../schemas/index.js';
import { sendRefusal } from './refusals.js';

/** The built-in schemas, public (R-SCH-13, R-SCH-14). */
export function schemasRoutes(validator: SchemaValidator): Router {
  const router = Router();
  const list = { schemas: validator.builtins.map((b) => ({ name: b.name, id: b.id })) };
  const byName = new Map(validator.builtins.map((b) => [`${b.name}.json`, b.schema]));
  router.get('/schemas/core', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(list);
  });
  router.get('/schemas/core/:file', (req, res) => {
    const schema = byName.get(req.params.file);
    if (!schema) return sendRefusal(res, refuse('not_found', 'no such built-in schema'));
    res.set('Cache-Control', 'public, max-age=300').type('application/schema+json').send(JSON.stringify(schema));
  });
  return router;
}
