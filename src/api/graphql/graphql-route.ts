import { readFileSync } from 'node:fs';
import { Router, type RequestHandler } from 'express';
import { buildSchema, GraphQLError, validate } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/express';
import type { Logger } from '../../logger.js';
import { refuse, refuseTransport } from '../../commands/refusal.js';
import { bodyTooDeep, TOO_DEEP } from '../middleware/json-body.js';
import { refusalForError, refusals, sendRefusal } from '../refusals.js';
import type { Authenticator } from '../auth/authenticate.js';
import { graphqlContext, type GraphqlContext, type GraphqlServices } from './context.js';
import { DocumentCache } from './document-cache.js';
import { parseBounded, queryLimitErrors } from './limits.js';
import { attachResolvers, resolvers } from './resolvers.js';

/** The SDL as written, comments and all: GET /graphql/schema.graphql serves this very text. */
export const schemaSdl = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');
export const schema = attachResolvers(buildSchema(schemaSdl), resolvers);

/** What graphql-http throws, as plain errors, for a request that is not a GraphQL request (R-FUZZ-03). */
const REQUEST_ERRORS: ReadonlySet<string> = new Set([
  'Missing body',
  'Unparsable JSON body',
  'JSON body must be an object',
  'Missing query',
  'Invalid query',
  'Invalid variables',
  'Invalid operationName',
  'Invalid extensions',
]);

/** graphql-http hands formatError its own plain errors too: the client's are bad input, any other is ours. */
function requestError(error: Error, logger: Pick<Logger, 'error'>): GraphQLError {
  if (REQUEST_ERRORS.has(error.message)) return new GraphQLError(error.message, { extensions: { code: 'BAD_USER_INPUT' } });
  logger.error({ err: error }, 'graphql request failed');
  return new GraphQLError('internal error', { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}

/**
 * graphql-http answers a bare 406 or 415, without a body, to an Accept or Content-Type it does not
 * parse (`application/json;;`, `application/x-nothing`). A GraphQL request is a UTF-8 JSON body
 * (jsonBody() has refused any other charset and parsed it) and the answer is JSON whatever Accept says, as RFC 9110 allows (R-FUZZ-03).
 */
function negotiated(): RequestHandler {
  return (req, res, next) => {
    if (!req.is('application/json')) {
      sendRefusal(res, refuseTransport('unsupported_media_type', 'send a GraphQL request as an application/json body'));
      return;
    }
    req.headers['content-type'] = 'application/json';
    req.headers.accept = req.accepts(['application/json', 'application/graphql-response+json']) || 'application/json';
    next();
  };
}

/**
 * POST /graphql (user token). A missing or refused token is an HTTP 401 problem before GraphQL
 * runs (R-GQL-01); everything after that answers in GraphQL's own error format.
 */
export function graphqlRoute(auth: Authenticator, services: GraphqlServices, logger: Pick<Logger, 'error'>): Router {
  const router = Router();
  const documents = new DocumentCache();
  const handler = createHandler<GraphqlContext>({
    schema,
    // §10.4: variables nested too deep are refused before anything walks them (inline values are bounded by parseBounded).
    onSubscribe: (req) => (bodyTooDeep(req.raw) ? [new GraphQLError(TOO_DEEP, { extensions: { code: 'BAD_USER_INPUT' } })] : undefined),
    parse: (source) => documents.parse(source, parseBounded),
    // Our limits first and on their own: graphql's rules may be super-linear on a hostile document.
    validate: (schema, document, rules) =>
      documents.validate(document, (d) => {
        const refused = queryLimitErrors(d);
        return refused.length ? refused : validate(schema, d, rules);
      }),
    context: (req) => {
      const caller = req.context.res.locals.caller;
      if (!caller) throw new Error('graphql route needs authenticate()');
      return graphqlContext(req.raw, caller, services, req.context.res.locals.registered === true);
    },
    formatError: (error) => {
      if (!(error instanceof GraphQLError)) return requestError(error, logger);
      if (error.extensions.code) return error;
      // No path: the request itself was refused before any resolver ran (a variable of the
      // wrong type, a null for a non-null input): the client's mistake, never ours.
      if (!error.path)
        return new GraphQLError(error.message, { ...(error.nodes ? { nodes: error.nodes } : {}), extensions: { code: 'BAD_USER_INPUT' } });
      if (!error.originalError) return error;
      const refused = refusalForError(error.originalError);
      const path = { path: error.path };
      if (refused) return new GraphQLError(refused.message, { ...path, extensions: { code: refusals[refused.code].graphql } });
      // An unexpected failure in a resolver: log it, answer without internals.
      logger.error({ err: error.originalError, path: error.path }, 'graphql resolver failed');
      return new GraphQLError('internal error', { ...path, extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    },
  });
  router.post('/graphql', auth.require('user', { beforeRegister: true }), negotiated(), handler);
  router.all('/graphql', (_req, res) => sendRefusal(res, refuse('invalid_request', 'GraphQL is served with POST')));
  return router;
}
