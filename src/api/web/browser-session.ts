import type { Request, RequestHandler, Response } from 'express';
import { refuse, type Refusal } from '../../commands/refusal.js';
import { sendRefusal } from '../refusals.js';

/** The header the pages send on every call (contract §11): a cross-site form cannot send it. */
export const CSRF_HEADER = 'x-csrf';

/** The header naming which organization's member cookie an /org/v1 call from the pages is signed in with. */
export const ORGANIZATION_HEADER = 'x-organization';

const ORGANIZATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Methods that change nothing: a cookie alone may read with them. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The browser session of contract §11: the user token in an HttpOnly, SameSite=Strict cookie that
 * page scripts cannot read, Secure unless the service runs on plain-http localhost, and the CSRF
 * defence a call with that cookie must carry (docs/decisions.md, "Browser session").
 */
export type BrowserSessions = {
  /** The cookie's name: `__Host-` prefixed whenever it is Secure, so no subdomain can plant or widen it. */
  readonly cookieName: string;
  readonly secure: boolean;
  /** The request asks for a cookie session: the pages' header, from the service's own origin. */
  wantsCookie(req: Request): boolean;
  /** The user token the request's cookie carries, or null. */
  tokenOf(req: Request): string | null;
  /** The member token of the organization the X-Organization header names, from that organization's cookie, or null. */
  memberTokenOf(req: Request): { readonly organizationId: string; readonly token: string } | null;
  /** Whether the request carries any cookie of ours (the session's or a member's). */
  carriesCookie(req: Request): boolean;
  /** Why a call carrying the cookie is refused before its token is even read, or null. */
  csrfRefusal(req: Request): Refusal | null;
  set(res: Response, token: string, expiresAt: string): void;
  setMember(res: Response, organizationId: string, token: string, expiresAt: string): void;
  clearMember(res: Response, organizationId: string): void;
  /** Drops the session's cookie and every member cookie the request carries. */
  clear(res: Response, req?: Request): void;
  /** A flow's own short-lived cookie (the partner sign-in's binding to its browser): the session's attributes, its own name. */
  setFlow(res: Response, name: string, value: string, maxAgeSeconds: number): void;
  flowOf(req: Request, name: string): string | null;
};

/** The cookie session for a service reached at `baseUrl` (BASE_URL). */
export function browserSessions(baseUrl: string, now: () => Date = () => new Date()): BrowserSessions {
  const base = new URL(baseUrl);
  const origin = base.origin;
  const secure = !(base.protocol === 'http:' && LOOPBACK_HOSTS.has(base.hostname));
  const cookieName = secure ? '__Host-session' : 'session';
  // One cookie per organization, so two tabs on two organizations never sign each other out.
  const memberPrefix = secure ? '__Host-member-' : 'member-';
  const flowPrefix = secure ? '__Host-' : '';
  const attributes = `Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  const setCookie = (res: Response, name: string, token: string, expiresAt: string) => {
    const maxAge = Math.max(0, Math.floor((Date.parse(expiresAt) - now().getTime()) / 1000));
    res.append('Set-Cookie', `${name}=${token}; ${attributes}; Max-Age=${maxAge}`);
  };
  const dropCookie = (res: Response, name: string) => res.append('Set-Cookie', `${name}=; ${attributes}; Max-Age=0`);

  // §11: a call from another origin is refused even with the header (a page there could send it with fetch, never with the cookie,
  // but the Origin says so plainly); Sec-Fetch-Site, when the browser sends it, must say the same.
  const sameOrigin = (req: Request): boolean => {
    const from = req.get('origin');
    if (from !== undefined && from !== origin) return false;
    const site = req.get('sec-fetch-site');
    return site === undefined || site === 'same-origin' || site === 'none';
  };

  return {
    cookieName,
    secure,
    wantsCookie: (req) => req.get(CSRF_HEADER) === '1',
    tokenOf: (req) => cookieValue(req.get('cookie'), cookieName),
    memberTokenOf: (req) => {
      const organizationId = req.get(ORGANIZATION_HEADER)?.toLowerCase();
      if (organizationId === undefined || !ORGANIZATION_ID.test(organizationId)) return null;
      const token = cookieValue(req.get('cookie'), memberPrefix + organizationId);
      return token === null ? null : { organizationId, token };
    },
    carriesCookie: (req) => cookieNames(req.get('cookie')).some((name) => name === cookieName || name.startsWith(memberPrefix)),
    csrfRefusal: (req) => {
      if (SAFE_METHODS.has(req.method)) return null;
      if (req.get(CSRF_HEADER) !== '1')
        return refuse('forbidden', `a call signed in with the session cookie must send the header X-CSRF: 1 (contract §11)`);
      if (!sameOrigin(req)) return refuse('forbidden', 'a call signed in with the session cookie must come from the service’s own pages');
      return null;
    },
    set: (res, token, expiresAt) => setCookie(res, cookieName, token, expiresAt),
    setMember: (res, organizationId, token, expiresAt) => setCookie(res, memberPrefix + organizationId, token, expiresAt),
    clearMember: (res, organizationId) => dropCookie(res, memberPrefix + organizationId),
    clear: (res, req) => {
      dropCookie(res, cookieName);
      for (const name of cookieNames(req?.get('cookie'))) if (name.startsWith(memberPrefix)) dropCookie(res, name);
    },
    setFlow: (res, name, value, maxAgeSeconds) =>
      res.append('Set-Cookie', `${flowPrefix}${name}=${value}; ${attributes}; Max-Age=${maxAgeSeconds}`),
    flowOf: (req, name) => cookieValue(req.get('cookie'), flowPrefix + name),
  };
}

/**
 * A signed-in answer whose token `keep` has put into a cookie (the session's, R-WEB-02, or a member's,
 * R-WEB-08): every field but the token itself, so the token never reaches page scripts.
 */
export function withoutToken<S extends { readonly token: string; readonly expiresAt: string }>(
  signedIn: S,
  keep: (token: string, expiresAt: string) => void,
): Omit<S, 'token'> {
  const { token, ...rest } = signedIn;
  keep(token, signedIn.expiresAt);
  return rest;
}

/** One cookie's value from a Cookie header (RFC 6265 §5.4), or null when it is absent or empty. */
function cookieValue(header: string | undefined, name: string): string | null {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at < 0 || pair.slice(0, at).trim() !== name) continue;
    const value = pair.slice(at + 1).trim();
    return value ? value : null;
  }
  return null;
}

/** The names of the cookies a Cookie header carries. */
function cookieNames(header: string | undefined): string[] {
  return (header ?? '')
    .split(';')
    .map((pair) => pair.slice(0, Math.max(0, pair.indexOf('='))).trim())
    .filter((name) => name !== '');
}

/**
 * R-WEB-03 (contract §11): before any route reads a body, a state-changing call that carries the
 * session's or a member's cookie and no Authorization header must carry X-CSRF: 1 from the service's own origin,
 * or it is 403 forbidden; a cross-site form can send the cookie (same site) but never that header.
 */
export function csrfGuard(browser: BrowserSessions): RequestHandler {
  return (req, res, next) => {
    const refused = req.get('authorization') === undefined && browser.carriesCookie(req) ? browser.csrfRefusal(req) : null;
    if (refused) return sendRefusal(res, refused);
    next();
  };
}
