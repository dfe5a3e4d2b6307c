import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Caller, IdentityService } from '../../identity/identity-service.js';
import type { Audience, ClaimsFor, EndReason, RefusalReason, TokenVerifier } from '../../identity/tokens/index.js';
import { isRefusal, refuse, type Refusal } from '../../commands/refusal.js';
import { sessionBucket, type FairUse } from '../../limits/fair-use.js';
import { membershipOf, type Membership } from '../../organizations/organization-service.js';
import { sendRefusal } from '../refusals.js';
import type { BrowserSessions } from '../web/browser-session.js';
import { bearerToken } from './challenge.js';

declare global {
  namespace Express {
    interface Locals {
      /** Set by authenticate(): the verified caller of this request. */
      caller?: Caller;
      /** The verified claims, for the organization plane (org, perms). */
      claims?: ClaimsFor<Audience>;
      /** Contract §11: the user token came in the browser session's cookie, not an Authorization header. */
      viaCookie?: boolean;
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
   * statement as the session, and refuses the token unless it is the membership it was issued in.
   */
  check<A extends Audience>(authorization: string | undefined, audience: A): Promise<Checked<A> | Refusal>;
  /**
   * The member check of a request: its Authorization header, or without one (contract §11) the
   * member cookie of the organization its X-Organization header names; a cookie refused as
   * unauthenticated is dropped.
   */
  member(req: Request, res: Response): Promise<Checked<'org'> | Refusal>;
};

export type Checked<A extends Audience> = {
  readonly caller: Caller;
  readonly claims: ClaimsFor<A>;
  readonly registered: boolean;
  /** A member token's membership as it stands now (the one the token was issued in); null for user tokens. */
  readonly membership: A extends 'org' ? Membership : null;
};

/**
 * R-TOK-09 (contract §10.5): what a 401 says, by why the token was refused; the challenge repeats
 * it (challenge.ts). Groups of checks share words: a caller learns what to do, not which check failed.
 */
const MALFORMED = 'the access token is malformed';
const WHY: { readonly [R in RefusalReason | 'no_token']: (audience: Audience) => string } = {
  no_token: (audience) =>
    audience === 'org'
      ? 'no access token: send Authorization: Bearer <token> with an organization token from POST /org/v1/token'
      : 'no access token: send Authorization: Bearer <token> with the token from POST /auth/verify-otp',
  malformed: () => MALFORMED,
  too_long: () => MALFORMED,
  forbidden_header: () => MALFORMED,
  bad_header: () => MALFORMED,
  missing_kid: () => MALFORMED,
  missing_claim: () => MALFORMED,
  bad_claims: () => MALFORMED,
  unsupported_alg: () => `${MALFORMED}: only EdDSA-signed tokens are accepted`,
  bad_signature: () => "the access token's signature does not verify",
  unknown_kid: () => 'the access token is signed under an unknown key (one this service does not hold, or no longer does); sign in again',
  wrong_issuer: () => 'the access token was issued by another service',
  not_yet_valid: () => 'the access token is not valid yet: it says it was issued in the future',
  expired: (audience) =>
    audience === 'org'
      ? 'the organization token has expired: get a new one from POST /org/v1/token'
      : 'the access token has expired: sign in again',
  wrong_audience: (audience) =>
    audience === 'org'
      ? 'a user token does not work on /org/v1: use an organization token from POST /org/v1/token'
      : 'an organization token does not work here: this route takes a user token (from POST /auth/verify-otp)',
  session_ended: () => 'the session of this access token has ended (signed out, revoked, expired or erased): sign in again',
  membership_ended: () =>
    'this token no longer belongs to a member of the organization (removed, or issued before membership ids): ' +
    'a member gets a new one from POST /org/v1/token',
};

const unauthenticated = (reason: RefusalReason | 'no_token', audience: Audience): Refusal =>
  refuse('unauthenticated', WHY[reason](audience));

const rateLimited = (wait: number): Refusal => refuse('rate_limited', 'too many requests for this token or organization; slow down', wait);

/**
 * One check for REST and GraphQL: an EdDSA token from our key set, for the expected audience,
 * whose session is live in the read model right now (so a revoked session fails on the very next
 * request, whichever instance answers it), and for a member token whose membership is still the one
 * it was issued in; within its session's (and organization's) fair use, which only such a caller
 * spends (R-LIM-17).
 */
export function authenticator(
  verifier: TokenVerifier,
  identities: IdentityService,
  fairUse?: FairUse,
  browser?: BrowserSessions,
): Authenticator {
  const check = async <A extends Audience>(authorization: string | undefined, audience: A): Promise<Checked<A> | Refusal> => {
    const token = bearerToken(authorization);
    if (token === null) return unauthenticated('no_token', audience);
    const result = await verifier.verify(token, audience);
    if (!result.ok) return unauthenticated(result.reason, audience);
    const claims: ClaimsFor<Audience> = result.claims;
    const bucket = sessionBucket(claims.aud, claims.sid);
    const organization = claims.aud === 'org' ? claims.org : null;
    // R-LIM-12: a flood past the allowance is refused before the session's row is read, counting nothing.
    const waiting = fairUse?.wait(bucket, organization) ?? 0;
    if (waiting > 0) return rateLimited(waiting);
    // Neither a session nor a membership comes back: the verifier answers this token from memory from now on.
    const ended = (reason: EndReason): Refusal => {
      verifier.end(token, reason);
      return unauthenticated(reason, audience);
    };
    // R-LIM-17 (contract §10.9): only a caller past every check spends the allowance.
    const admitted = (ok: Checked<Audience>): Checked<A> | Refusal => {
      const wait = fairUse?.admit(bucket, organization) ?? 0;
      return wait > 0 ? rateLimited(wait) : ok;
    };
    const caller = { identityId: claims.sub, sessionId: claims.sid, email: claims.email };
    if (claims.aud === 'org') {
      if (claims.membership === '') return ended('membership_ended');
      const session = await identities.liveMemberSession(claims.sub, claims.sid, claims.org, claims.email, claims.membership);
      if (!session) return ended('session_ended');
      if (!session.membership) return ended('membership_ended');
      return admitted({ caller, claims, registered: session.registered, membership: membershipOf(session.membership) });
    }
    const session = await identities.liveSession(claims.sub, claims.sid);
    if (!session) return ended('session_ended');
    return admitted({ caller, claims, registered: session.registered, membership: null });
  };
  return {
    check,
    member: async (req, res) => {
      const cookie = browser && req.get('authorization') === undefined ? browser.memberTokenOf(req) : null;
      const ok = await check(cookie === null ? req.get('authorization') : `Bearer ${cookie.token}`, 'org');
      if (cookie !== null && isRefusal(ok) && ok.code === 'unauthenticated') browser?.clearMember(res, cookie.organizationId);
      res.locals.viaCookie = cookie !== null;
      return ok;
    },
    require:
      (audience, options = {}) =>
      async (req: Request, res: Response, next: NextFunction) => {
        try {
          // Contract §11: without an Authorization header a user route takes the browser session's cookie (csrfGuard checked the call).
          const cookie = audience === 'user' && browser && req.get('authorization') === undefined ? browser.tokenOf(req) : null;
          const ok = await check(cookie === null ? req.get('authorization') : `Bearer ${cookie}`, audience);
          if (isRefusal(ok)) {
            // A cookie whose session ended is of no more use: the browser drops it.
            if (cookie !== null && ok.code === 'unauthenticated') browser?.clear(res, req);
            return sendRefusal(res, ok);
          }
          if (audience === 'user' && !options.beforeRegister && !ok.registered) {
            return sendRefusal(res, refuse('forbidden', 'register first: call user.register before anything else'));
          }
          res.locals.caller = ok.caller;
          res.locals.claims = ok.claims;
          res.locals.registered = ok.registered;
          res.locals.viaCookie = cookie !== null;
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
