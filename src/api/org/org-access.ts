import type { RequestHandler, Response } from 'express';
import { isRefusal, refuse } from '../../commands/refusal.js';
import type { Permission } from '../../events/organization-events.js';
import type { Member } from '../../organizations/index.js';
import type { Authenticator } from '../auth/authenticate.js';
import { sendRefusal } from '../refusals.js';

declare global {
  namespace Express {
    interface Locals {
      /** Set by orgAccess(): the caller as a member, with the permissions the membership holds now. */
      member?: Member;
    }
  }
}

/**
 * The guard of every member route, in the order of R-ORG-08: 401 unless a live member token (a
 * header's, or from the pages the organization's member cookie, contract §11) whose
 * address is still a member of its organization, in the membership the token was issued in (the
 * authenticator reads it on each request, so a removal bites on the very next request); then 403
 * forbidden unless the membership, not the token's perms claim, holds `permission`. Routes then
 * answer 404 for anything not of this organization.
 */
export function orgAccess(auth: Authenticator): (permission: Permission) => RequestHandler[] {
  // The membership is read with the session's check, in the same statement.
  const asMember: RequestHandler = async (req, res, next) => {
    try {
      const ok = await auth.member(req, res);
      if (isRefusal(ok)) return sendRefusal(res, ok);
      const { caller, claims, membership } = ok;
      res.locals.caller = caller;
      res.locals.claims = claims;
      res.locals.member = {
        organizationId: claims.org,
        identityId: caller.identityId,
        email: caller.email,
        permissions: membership.permissions,
      };
      next();
    } catch (e) {
      next(e);
    }
  };
  const holding =
    (permission: Permission): RequestHandler =>
    (_req, res, next) => {
      if (!memberOf(res).permissions.includes(permission))
        return sendRefusal(res, refuse('forbidden', `this needs the ${permission} permission`));
      next();
    };
  return (permission) => [asMember, holding(permission)];
}

/** The member set by orgAccess(); a route without it is a wiring bug. */
export function memberOf(res: Response): Member {
  const member = res.locals.member;
  if (!member) throw new Error('route needs orgAccess() before it');
  return member;
}
