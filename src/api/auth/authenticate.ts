import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Caller, IdentityService } from '../../identity/identity-service.js';
import type { Audience, ClaimsFor, TokenVerifier } from '../../identity/tokens/index.js';
import { isRefusal, refuse, type Refusal } from '../../commands/refusal.js';
import type { FairUse } from '../../limits/fair-use.js';
import { membershipOf, type Membership } from '../../organizations/organization-service.js';
import { sendRefusal } from '../refusals.js';

declare global {
  namespace Express {
    interface Locals {
      /** Set by authenticate(): the verified caller of this request. */
      caller?: Caller;
      /** The verified claims, for the organization plane (org, perms). */
      claims?: ClaimsFor<Audience>;
    }
  }
}

export type RequireOptions = {
  /**
   * R-AUTH-16: before user.register a user token may call only the auth routes, register and me;
   * every other user route refuses it with 403. Routes opt out of that rule here, by name, so a
   * new route cannot forget it.
   */
  readonly beforeRegister?: boolean;
};

export type Authenticator = {
  /**
   * Middleware: 401 unauthenticated unless a valid token of `audience` with a live session comes
   * along; then, for user tokens, 403 forbidden until the caller registered (unless `beforeRegister`).
   */
  require(audience: Audience, options?: RequireOptions): RequestHandler;
  /**
   * The same check for a bare header: the caller, or why not (401 unauthenticated, 429 rate_limited).
   * A member token's check reads the address's membership of its organization in the same
   * statement as the session: null when it has none (now).
   */
  check<A extends Audience>(authorization: string | undefined, audience: A): Promise<Checked<A> | Refusal>;
};

export type Checked<A extends Audience> = {
  readonly caller: Caller;
  readonly claims: ClaimsFor<A>;
  readonly registered: boolean;
  /** Member tokens only; null for user tokens. */
  readonly membership: Membership | null;
};

const unauthenticated = (): Refusal => refuse('unauthenticated', 'a valid access token is required');

/**
 * One check for REST and GraphQL: an EdDSA token from our key set, for the expected audience,
 * within its session's (and organization's) fair use, whose session is live in the read model
 * right now (so a revoked session fails on the very next request, whichever instance answers it).
 */
export function authenticator(verifier: TokenVerifier, identities: IdentityService, fairUse?: FairUse): Authenticator {
  const check = async <A extends Audience>(authorization: string | undefined, audience: A): Promise<Checked<A> | Refusal> => {
    const match = /^Bearer ([A-Za-z0-9_\-.]+)$/.exec(authorization ?? '');
    if (!match) return unauthenticated();
    const result = await verifier.verify(match[1]!, audience);
    if (!result.ok) return unauthenticated();
    const claims = result.claims;
    // R-LIM-12: before the session's row is read, so a flood is refused without the database.
    const wait = fairUse?.admit(`${claims.aud}:${claims.sid}`, claims.aud === 'org' ? claims.org : null) ?? 0;
    if (wait > 0) return refuse('rate_limited', 'too many requests for this token or organization; slow down', wait);
    const caller = { identityId: claims.sub, sessionId: claims.sid, email: claims.email };
    if (claims.aud === 'org') {
      const session = await identities.liveMemberSession(claims.sub, claims.sid, claims.org, claims.email);
      if (!session) return unauthenticated();
      const membership = session.membership && membershipOf(session.membership);
      return { caller, claims, registered: session.registered, membership };
    }
    const session = await identities.liveSession(claims.sub, claims.sid);
    if (!session) return unauthenticated();
    return { caller, claims, registered: session.registered, membership: null };
  };
  return {
    check,
    require:
      (audience, options = {}) =>
      async (req: Request, res: Response, next: NextFunction) => {
        try {
          const ok = await check(req.get('authorization'), audience);
          if (isRefusal(ok)) return sendRefusal(res, ok);
          if (audience === 'user' && !options.beforeRegister && !ok.registered) {
            return sendRefusal(res, refuse('forbidden', 'register first: call user.register before anything else'));
          }
          res.locals.caller = ok.caller;
          res.locals.claims = ok.claims;
          res.locals.registered = ok.registered;
          next();
        } catch (e) {
          next(e);
        }
      },
  };
}

/** The caller set by authenticate(); a route without it is a wiring bug. */
export function callerOf(res: Response): Caller {
  const caller = res.locals.caller;
  if (!caller) throw new Error('route needs authenticate() before it');
  return caller;
}
