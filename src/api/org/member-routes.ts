import { Router, type Request, type RequestHandler, type Response } from 'express';
import { normalizeEmail } from '../../identity/email.js';
import { isRefusal, refuse } from '../../commands/refusal.js';
import type { EventContext } from '../../events/envelope.js';
import { PERMISSIONS, type Permission } from '../../events/organization-events.js';
import type { OrganizationKey, OrganizationService, RedirectPolicy } from '../../organizations/index.js';
import { jsonBody } from '../middleware/json-body.js';
import { knownInput } from '../middleware/known-input.js';
import { answer, created, ok, whenDone } from '../answer.js';
import { eventContext } from '../request-context.js';
import { objectAt, subsetAt } from '../fields.js';
import { appBody } from './app-body.js';
import { memberOf } from './org-access.js';

/**
 * The member routes: members, the key, apps (R-ORG-04, R-ORG-05, R-ORG-09 to R-ORG-13, R-ORG-16 to R-ORG-18, R-WEB-44). Each
 * addresses the token's own organization only.
 */
export function memberRoutes(
  organizations: OrganizationService,
  key: OrganizationKey,
  access: (p: Permission) => RequestHandler[],
  now: () => Date,
  redirectPolicy: RedirectPolicy,
): Router {
  const router = Router();
  const context = (req: Request, res: Response): EventContext => eventContext(req, { kind: 'member', id: memberOf(res).identityId }, now());

  router.get(
    '/org/v1/members',
    ...access('member_manage'),
    knownInput(),
    answer(async (_req, res) => ok({ members: await organizations.members(memberOf(res).organizationId) })),
  );

  router.put(
    '/org/v1/members/:email',
    ...access('member_manage'),
    jsonBody(),
    answer(async (req, res) => {
      const email = normalizeEmail(String(req.params.email));
      if (isRefusal(email)) return email;
      const body = objectAt(req.body, 'body');
      if (isRefusal(body)) return body;
      const permissions = subsetAt(body.permissions, 'permissions', PERMISSIONS);
      if (isRefusal(permissions)) return permissions;
      const member = await organizations.setMember(memberOf(res), email, permissions, context(req, res));
      return whenDone(member, (m) => ok({ member: m }));
    }),
  );

  router.delete(
    '/org/v1/members/:email',
    ...access('member_manage'),
    knownInput(),
    answer(async (req, res) => {
      const email = normalizeEmail(String(req.params.email));
      // A malformed address names no member: as unknown as any other (R-HTTP-11).
      if (isRefusal(email)) return refuse('not_found', 'no such member');
      const removed = await organizations.removeMember(memberOf(res), email, context(req, res));
      return whenDone(removed, () => ok({ removed: true }));
    }),
  );

  router.get(
    '/org/v1/key',
    ...access('request_read'),
    knownInput(),
    answer(async (_req, res) => ok(await key.state(memberOf(res).organizationId))),
  );

  router.post(
    '/org/v1/key/seal',
    ...access('member_manage'),
    knownInput(),
    answer(async (req, res) => whenDone(await key.seal(memberOf(res), context(req, res)), ok)),
  );

  // The settings page lists the apps, so a client ID is not lost once its registration answer is gone.
  router.get(
    '/org/v1/apps',
    ...access('member_manage'),
    knownInput(),
    answer(async (_req, res) => ok({ apps: await organizations.apps(memberOf(res).organizationId) })),
  );

  router.post(
    '/org/v1/apps',
    ...access('member_manage'),
    jsonBody(),
    answer(async (req, res) => {
      const app = await appBody(req.body, redirectPolicy);
      if (isRefusal(app)) return app;
      return whenDone(await organizations.registerApp(memberOf(res), app.name, app.client, context(req, res)), created);
    }),
  );

  return router;
}
