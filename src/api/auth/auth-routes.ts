import { Router, type Response } from 'express';
import { normalizeEmail, type Email } from '../../identity/email.js';
import type { IdentityService } from '../../identity/identity-service.js';
import { isRefusal, type Refusal } from '../../commands/refusal.js';
import type { Actor } from '../../events/envelope.js';
import { clientAddress } from '../../limits/client-address.js';
import { exactTextAt, fieldOf } from '../fields.js';
import { answer, ok, whenDone } from '../answer.js';
import { eventContext } from '../request-context.js';
import { withoutToken, type BrowserSessions } from '../web/browser-session.js';
import { callerOf, type Authenticator } from './authenticate.js';

const MAX_EMAIL = 320;
const MAX_CODE = 64;

/** The login and session routes (R-AUTH-01 to R-AUTH-23), and the browser session's (contract §11, R-WEB-*). */
export function authRoutes(identities: IdentityService, auth: Authenticator, now: () => Date, browser?: BrowserSessions): Router {
  const router = Router();
  const actorOf = (res: Response): Actor => ({ kind: 'user', id: callerOf(res).identityId });

  router.post(
    '/auth/send-otp',
    answer(async (req) => {
      const email = emailFrom(req.body);
      if (isRefusal(email)) return email;
      // Known and unknown addresses get this same answer: nothing tells whether an account exists.
      return (await identities.sendLoginCode(email, clientAddress(req.ip))) ?? ok({ success: true });
    }),
  );

  router.post(
    '/auth/verify-otp',
    answer(async (req, res) => {
      const input = emailAndCode(req.body);
      if (isRefusal(input)) return input;
      // R-WEB-02: the pages ask for the session as a cookie, from the service's own origin only.
      const cookie = browser?.wantsCookie(req) ? browser : null;
      const csrf = cookie?.csrfRefusal(req);
      if (csrf) return csrf;
      const result = await identities.verifyLogin(input.email, input.code, clientAddress(req.ip), (actor) =>
        eventContext(req, actor, now()),
      );
      return whenDone(result, (session) => (cookie ? ok(withoutToken(session, (t, until) => cookie.set(res, t, until))) : ok(session)));
    }),
  );

  // R-WEB-05: signing out ends the caller's session and drops the browser's cookie.
  router.post(
    '/auth/sign-out',
    auth.require('user', { beforeRegister: true }),
    answer(async (req, res) => {
      const caller = callerOf(res);
      const refused = await identities.revokeSession(caller, caller.sessionId, eventContext(req, actorOf(res), now()));
      if (isRefusal(refused)) return refused;
      browser?.clear(res, req);
      return ok({ signedOut: true });
    }),
  );

  router.post(
    '/auth/renew',
    auth.require('user', { beforeRegister: true }),
    answer(async (req, res) => {
      const renewed = await identities.renew(callerOf(res), eventContext(req, actorOf(res), now()));
      // R-WEB-02: a session held in the cookie is renewed in the cookie; its token never reaches page scripts.
      return whenDone(renewed, (session) =>
        browser && res.locals.viaCookie ? ok(withoutToken(session, (t, until) => browser.set(res, t, until))) : ok(session),
      );
    }),
  );

  router.post(
    '/auth/verify-email/send',
    auth.require('user', { beforeRegister: true }),
    answer(async (req, res) => {
      const email = emailFrom(req.body);
      if (isRefusal(email)) return email;
      return (await identities.sendEmailVerification(callerOf(res), email, clientAddress(req.ip))) ?? ok({ success: true });
    }),
  );

  router.post(
    '/auth/verify-email/confirm',
    auth.require('user', { beforeRegister: true }),
    answer(async (req, res) => {
      const input = emailAndCode(req.body);
      if (isRefusal(input)) return input;
      const refused = await identities.confirmEmailVerification(
        callerOf(res),
        input.email,
        input.code,
        clientAddress(req.ip),
        eventContext(req, actorOf(res), now()),
      );
      return refused ?? ok({ verified: true });
    }),
  );

  return router;
}

/**
 * R-AUTH-02: a malformed address is 400 invalid_email, one with control characters too
 * (normalizeEmail refuses them); only a missing, non-string or overlong field is invalid_request.
 */
function emailFrom(body: unknown): Email | Refusal {
  const raw = fieldOf(body, 'email');
  if (typeof raw === 'string' && raw.length <= MAX_EMAIL) return normalizeEmail(raw);
  const refused = exactTextAt(raw, 'email', MAX_EMAIL);
  return isRefusal(refused) ? refused : normalizeEmail(refused);
}

/** verify-otp's body (R-AUTH-02, R-AUTH-10): an address as emailFrom reads it and the code exactly as sent. */
export function emailAndCode(body: unknown): { email: Email; code: string } | Refusal {
  const email = emailFrom(body);
  if (isRefusal(email)) return email;
  const code = exactTextAt(fieldOf(body, 'code'), 'code', MAX_CODE);
  if (isRefusal(code)) return code;
  return { email, code };
}
