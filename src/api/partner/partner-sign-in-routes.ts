import { Router, type Request, type Response } from 'express';
import { isRefusal, refuse, type AnyRefusal, type Refusal } from '../../commands/refusal.js';
import { clientAddress } from '../../limits/client-address.js';
import type { ConsentInteraction } from '../../partner/consent-interaction.js';
import { newBrowserBinding, PARTNER_SIGN_IN_SECONDS, type PartnerSignIn, type SignInStep } from '../../partner/partner-sign-in.js';
import { answer, ok, whenDone } from '../answer.js';
import { emailAndCode } from '../auth/auth-routes.js';
import { exactTextAt, objectAt, type Fields } from '../fields.js';
import { jsonBody } from '../middleware/json-body.js';
import { knownInput } from '../middleware/known-input.js';
import { eventContext } from '../request-context.js';
import type { BrowserSessions } from '../web/browser-session.js';

export type PartnerSignInRouteDeps = {
  readonly signIn: PartnerSignIn;
  readonly consent: ConsentInteraction;
  readonly browser: BrowserSessions;
  readonly now: () => Date;
};

/** The cookie binding a sign-in at a partner's provider to the browser that began it. */
const BINDING = 'partner-sign-in';
/** The provider's answer comes back as its query string: at most this long. */
const MAX_CALLBACK = 8 * 1024;

/**
 * "Continue with <organization>" (contract §13, docs/oauth.md): the consent page's start, the
 * callback page's completion, a first sign-in's link with an address's code, and the key the
 * service authenticates to the providers with. Every call is the pages' own (R-WEB-02's CSRF defence).
 */
export function partnerSignInRoutes(deps: PartnerSignInRouteDeps): Router {
  const router = Router();
  const { signIn, consent, browser } = deps;
  const context = (req: Request) => (actor: Parameters<typeof eventContext>[1]) => eventContext(req, actor, deps.now());
  /** A step's answer: its session goes into the cookie, never into the body. */
  const stepped = (res: Response, step: SignInStep | AnyRefusal) =>
    whenDone(step, (s) => {
      if ('link' in s) return ok({ link: s.link });
      if (s.session) browser.set(res, s.session.token, s.session.expiresAt);
      return ok({ redirectTo: s.redirectTo, signedIn: Boolean(s.session) });
    });

  router.post(
    '/oauth/interaction/:uid/partner-sign-in',
    knownInput(),
    answer(async (req, res) => {
      const refused = browser.csrfRefusal(req);
      if (refused) return refused;
      const details = await consent.inProgress({ req, res });
      if (isRefusal(details)) return details;
      const binding = newBrowserBinding();
      const started = await signIn.start(details.uid, details.client, binding);
      if (!isRefusal(started)) browser.setFlow(res, BINDING, binding, PARTNER_SIGN_IN_SECONDS);
      return whenDone(started, ok);
    }),
  );

  /** A step after the provider's answer: the pages' call, its body read by `input`, in the browser holding the sign-in's cookie. */
  const afterAnswer = <T>(
    input: (body: Fields) => T | Refusal,
    run: (value: T, binding: string, req: Request) => Promise<SignInStep | AnyRefusal>,
  ) =>
    answer(async (req, res) => {
      const refused = browser.csrfRefusal(req);
      if (refused) return refused;
      const body = objectAt(req.body, 'body');
      if (isRefusal(body)) return body;
      const value = input(body);
      if (isRefusal(value)) return value;
      const binding = browser.flowOf(req, BINDING);
      if (binding === null) return refuse('not_found', 'no sign-in in progress in this browser: start again from the app');
      return stepped(res, await run(value, binding, req));
    });

  router.post(
    '/oauth/partner-sign-in/complete',
    jsonBody(),
    afterAnswer(
      (body) => exactTextAt(body.callback, 'callback', MAX_CALLBACK),
      (callback, binding, req) => signIn.complete(callback, binding, context(req)),
    ),
  );

  router.post(
    '/oauth/partner-sign-in/link',
    jsonBody(),
    afterAnswer(
      // As POST /auth/verify-otp takes them (R-AUTH-02, R-AUTH-10).
      emailAndCode,
      ({ email, code }, binding, req) => signIn.link(binding, email, code, clientAddress(req.ip), context(req)),
    ),
  );

  router.get(
    '/oauth/partner-sign-in/jwks',
    knownInput(),
    answer(async () => ok(await signIn.jwks())),
  );
  return router;
}
