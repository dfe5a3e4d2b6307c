import { Router, type Request, type Response } from 'express';
import { normalizeEmail, type Email } from '../../auth/email.js';
import type { IdentityService } from '../../auth/identity-service.js';
import { isRefusal, type Refusal } from '../../commands/refusal.js';
import type { Actor } from '../../events/envelope.js';
import { exactTextAt, fieldOf } from '../fields.js';
import { sendRefusal } from '../refusals.js';
import { eventContext } from '../request-context.js';
import { callerOf, type Authenticator } from './authenticate.js';

const MAX_EMAIL = 320;
const MAX_CODE = 64;

/** Spec §4.1: the login and session routes. */
export function authRoutes(identities: IdentityService, auth: Authenticator, now: () => Date): Router {
  const router = Router();
  const actorOf = (res: Response): Actor => ({ kind: 'user', id: callerOf(res).identityId });

  router.post('/auth/send-otp', async (req, res) => {
    const email = emailFrom(req.body);
    if (isRefusal(email)) return sendRefusal(res, email);
    const refused = await identities.sendLoginCode(email);
    // Known and unknown addresses get this same answer: nothing tells whether an account exists.
    if (refused) return sendRefusal(res, refused);
    res.json({ success: true });
  });

  router.post('/auth/verify-otp', async (req, res) => {
    const input = emailAndCode(req.body);
    if (isRefusal(input)) return sendRefusal(res, input);
    const result = await identities.verifyLogin(input.email, input.code, (actor) => eventContext(req, actor, now()));
    if (isRefusal(result)) return sendRefusal(res, result);
    res.json(result);
  });

  router.post('/auth/renew', auth.require('user'), async (req, res) => {
    const result = await identities.renew(callerOf(res), eventContext(req, actorOf(res), now()));
    if (isRefusal(result)) return sendRefusal(res, result);
    res.json(result);
  });

  router.post('/auth/verify-email/send', auth.require('user'), async (req, res) => {
    const email = emailFrom(req.body);
    if (isRefusal(email)) return sendRefusal(res, email);
    const refused = await identities.sendEmailVerification(callerOf(res), email);
    if (refused) return sendRefusal(res, refused);
    res.json({ success: true });
  });

  router.post('/auth/verify-email/confirm', auth.require('user'), async (req: Request, res) => {
    const input = emailAndCode(req.body);
    if (isRefusal(input)) return sendRefusal(res, input);
    const refused = await identities.confirmEmailVerification(callerOf(res), input.email, input.code, eventContext(req, actorOf(res), now()));
    if (refused) return sendRefusal(res, refused);
    res.json({ verified: true });
  });

  return router;
}

function emailFrom(body: unknown) {
  const raw = exactTextAt(fieldOf(body, 'email'), 'email', MAX_EMAIL);
  return isRefusal(raw) ? raw : normalizeEmail(raw);
}

function emailAndCode(body: unknown): { email: Email; code: string } | Refusal {
  const rawEmail = exactTextAt(fieldOf(body, 'email'), 'email', MAX_EMAIL);
  if (isRefusal(rawEmail)) return rawEmail;
  const code = exactTextAt(fieldOf(body, 'code'), 'code', MAX_CODE);
  if (isRefusal(code)) return code;
  const email = normalizeEmail(rawEmail);
  if (isRefusal(email)) return email;
  return { email, code };
}
