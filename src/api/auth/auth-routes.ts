import { Router, type Request, type Response } from 'express';
import { normalizeEmail, type Email } from '../../auth/email.js';
import type { IdentityService } from '../../auth/identity-service.js';
import { isRefusal, type Refusal } from '../../commands/refusal.js';
import type { Actor } from '../../events/envelope.js';
import { clientAddress } from '../../limits/client-address.js';
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
    const refused = await identities.sendLoginCode(email, clientAddress(req.ip));
    // Known and unknown addresses get this same answer: nothing tells whether an account exists.
    if (refused) return sendRefusal(res, refused);
    res.json({ success: true });
  });

  router.post('/auth/verify-otp', async (req, res) => {
    const input = emailAndCode(req.body);
    if (isRefusal(input)) return sendRefusal(res, input);
    const result = await identities.verifyLogin(input.email, input.code, clientAddress(req.ip), (actor) => eventContext(req, actor, now()));
    if (isRefusal(result)) return sendRefusal(res, result);
    res.json(result);
  });

  router.post('/auth/renew', auth.require('user', { beforeRegister: true }), async (req, res) => {
    const result = await identities.renew(callerOf(res), eventContext(req, actorOf(res), now()));
    if (isRefusal(result)) return sendRefusal(res, result);
    res.json(result);
  });

  router.post('/auth/verify-email/send', auth.require('user', { beforeRegister: true }), async (req, res) => {
    const email = emailFrom(req.body);
    if (isRefusal(email)) return sendRefusal(res, email);
    const refused = await identities.sendEmailVerification(callerOf(res), email, clientAddress(req.ip));
    if (refused) return sendRefusal(res, refused);
    res.json({ success: true });
  });

  router.post('/auth/verify-email/confirm', auth.require('user', { beforeRegister: true }), async (req: Request, res) => {
    const input = emailAndCode(req.body);
    if (isRefusal(input)) return sendRefusal(res, input);
    const refused = await identities.confirmEmailVerification(
      callerOf(res),
      input.email,
      input.code,
      clientAddress(req.ip),
      eventContext(req, actorOf(res), now()),
    );
    if (refused) return sendRefusal(res, refused);
    res.json({ verified: true });
  });

  return router;
}

/**
 * Contract §8: a malformed address is 400 invalid_email, one with control characters too
 * (normalizeEmail refuses them); only a missing, non-string or overlong field is invalid_request.
 */
function emailFrom(body: unknown): Email | Refusal {
  const raw = fieldOf(body, 'email');
  if (typeof raw === 'string' && raw.length <= MAX_EMAIL) return normalizeEmail(raw);
  const refused = exactTextAt(raw, 'email', MAX_EMAIL);
  return isRefusal(refused) ? refused : normalizeEmail(refused);
}

function emailAndCode(body: unknown): { email: Email; code: string } | Refusal {
  const email = emailFrom(body);
  if (isRefusal(email)) return email;
  const code = exactTextAt(fieldOf(body, 'code'), 'code', MAX_CODE);
  if (isRefusal(code)) return code;
  return { email, code };
}
