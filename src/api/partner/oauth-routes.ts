import { Router, type Request, type Response } from 'express';
import { isRefusal } from '../../commands/refusal.js';
import type { Actor } from '../../events/envelope.js';
import type { AuthorizationServer } from '../../partner/authorization-server.js';
import type { ConsentInteraction } from '../../partner/consent-interaction.js';
import { answer, ok, whenDone } from '../answer.js';
import { callerOf, type Authenticator } from '../auth/authenticate.js';
import { objectAt, textAt } from '../fields.js';
import { jsonBody } from '../middleware/json-body.js';
import { knownInput } from '../middleware/known-input.js';
import { eventContext } from '../request-context.js';

export type OAuthRouteDeps = {
  readonly server: AuthorizationServer;
  readonly consent: ConsentInteraction;
  readonly auth: Authenticator;
  readonly now: () => Date;
};

const actorOf = (res: Response): Actor => ({ kind: 'user', id: callerOf(res).identityId });
const http = (req: Request, res: Response) => ({ req, res });

/**
 * The authorization server's routes (contract §13, docs/oauth.md): oidc-provider's own under /oauth
 * and discovery, and the hosted consent page's calls under /oauth/interaction/{uid}, where its
 * interaction cookie reaches them.
 */
export function oauthRoutes(deps: OAuthRouteDeps): Router {
  const router = Router();
  const provider = deps.server.provider.callback();
  const { consent, auth } = deps;

  // §10.3 first: a query parameter or field the document does not define is 400 before anything is looked up.
  router.get(
    '/oauth/interaction/:uid/asked',
    knownInput(),
    answer(async (req, res) => whenDone(await consent.asked(http(req, res)), ok)),
  );
  router.post(
    '/oauth/interaction/:uid/open',
    knownInput(),
    auth.require('user'),
    answer(async (req, res) =>
      whenDone(await consent.open(http(req, res), callerOf(res), eventContext(req, actorOf(res), deps.now())), ok),
    ),
  );
  router.post(
    '/oauth/interaction/:uid/finish',
    jsonBody(),
    auth.require('user'),
    answer(async (req, res) => {
      const body = objectAt(req.body, 'body');
      if (isRefusal(body)) return body;
      const requestId = textAt(body.requestId, 'requestId', 64);
      if (isRefusal(requestId)) return requestId;
      const context = eventContext(req, actorOf(res), deps.now());
      return whenDone(await consent.finish(http(req, res), callerOf(res), requestId, context), ok);
    }),
  );
  router.post(
    '/oauth/interaction/:uid/deny',
    knownInput(),
    answer(async (req, res) => whenDone(await consent.deny(http(req, res)), ok)),
  );
  // RFC 8414's metadata is OpenID discovery's document: one description of the server.
  router.get('/.well-known/oauth-authorization-server', (req, res) => {
    req.url = '/.well-known/openid-configuration';
    void provider(req, res);
  });
  router.use((req, res, next) => {
    const ours = ['/oauth/interaction/', '/oauth/partner-sign-in/'].some((prefix) => req.path.startsWith(prefix));
    const own = (req.path.startsWith('/oauth/') && !ours) || req.path === '/.well-known/openid-configuration';
    if (own) void provider(req, res);
    else next();
  });
  return router;
}
