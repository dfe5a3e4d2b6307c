import { readFileSync } from 'node:fs';
import { Router } from 'express';
import { buildSchema, GraphQLError, specifiedRules } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/express';
import type { Logger } from '../../logger.js';
import { refuse } from '../../commands/refusal.js';
import { sendRefusal } from '../refusals.js';
import type { Authenticator } from '../auth/authenticate.js';
import { graphqlContext, type GraphqlContext, type GraphqlServices } from './context.js';
import { queryLimits } from './limits.js';
import { attachResolvers, resolvers } from './resolvers.js';

const schema = attachResolvers(buildSchema(readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8')), resolvers);

/**
 * POST /graphql (user token). A missing or refused token is an HTTP 401 problem before GraphQL
 * runs (contract §8); everything after that answers in GraphQL's own error format.
 */
export function graphqlRoute(auth: Authenticator, services: GraphqlServices, logger: Pick<Logger, 'error'>): Router {
  const router = Router();
  const handler = createHandler<GraphqlContext>({
    schema,
    validationRules: [...specifiedRules, queryLimits],
    context: (req) => {
      const caller = req.context.res.locals.caller;
      if (!caller) throw new Error('graphql route needs authenticate()');
      return graphqlContext(req.raw, caller, services);
    },
    formatError: (error) => {
      if (!(error instanceof GraphQLError)) return error;
      if (error.extensions.code || !error.originalError) return error;
      // An unexpected failure in a resolver: log it, answer without internals.
      logger.error({ err: error.originalError, path: error.path }, 'graphql resolver failed');
      return new GraphQLError('internal error', { ...(error.path ? { path: error.path } : {}), extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    },
  });
  router.post('/graphql', auth.require('user'), handler);
  router.all('/graphql', (_req, res) => sendRefusal(res, refuse('invalid_request', 'GraphQL is served with POST')));
  return router;
}
