import { Router, type Response } from 'express';
import { isRefusal, refuse } from '../../commands/refusal.js';
import type { Actor } from '../../events/envelope.js';
import type { OrganizationKey, OrganizationService } from '../../organizations/index.js';
import { callerOf, type Authenticator } from '../auth/authenticate.js';
import { jsonBody } from '../middleware/json-body.js';
import { knownInput } from '../middleware/known-input.js';
import { answer, created, ok, whenDone } from '../answer.js';
import { eventContext } from '../request-context.js';
import { objectAt, textAt } from '../fields.js';
import { withoutToken, type BrowserSessions } from '../web/browser-session.js';

const MAX_NAME = 200;

/**
 * The organization routes that take a user token (R-ORG-01, R-ORG-02, §11): found an organization,
 * list one's memberships, sign in as a member.
 */
export function organizationRoutes(
  organizations: OrganizationService,
  key: OrganizationKey,
  auth: Authenticator,
  now: () => Date,
  browser?: BrowserSessions,
): Router {
  const router = Router();
  const asUser = (res: Response): Actor => ({ kind: 'user', id: callerOf(res).identityId });

  router.post(
    '/org/v1/organizations',
    auth.require('user'),
    jsonBody(),
    answer(async (req, res) => {
      const body = objectAt(req.body, 'body');
      if (isRefusal(body)) return body;
      // The name is the subject line of every invitation mail the organization sends.
      const name = textAt(body.name, 'name', MAX_NAME, 'shown');
      if (isRefusal(name)) return name;
      const organization = await organizations.create(callerOf(res), name, eventContext(req, asUser(res), now()));
      return whenDone(organization, (o) => created({ organization: o }));
    }),
  );

  // §11: the caller's memberships, by login address; an unregistered caller is refused as on every user route.
  router.get(
    '/org/v1/organizations',
    auth.require('user'),
    knownInput(),
    answer(async (_req, res) => ok({ organizations: await organizations.memberships(callerOf(res)) })),
  );

  router.post(
    '/org/v1/token',
    auth.require('user'),
    jsonBody(),
    answer(async (req, res) => {
      const body = objectAt(req.body, 'body');
      if (isRefusal(body)) return body;
      const { organizationId } = body;
      if (organizationId === undefined || organizationId === null) return refuse('invalid_request', 'organizationId is required');
      if (typeof organizationId !== 'string') return refuse('invalid_request', 'organizationId must be a string');
      // Any string is looked up: a malformed id is as unknown as any other (R-HTTP-11: 404).
      const signedIn = await key.signIn(callerOf(res), organizationId.toLowerCase(), eventContext(req, asUser(res), now()));
      // R-WEB-08: signed in through the session's cookie, the member token goes into its organization's cookie, never to page scripts.
      return whenDone(signedIn, (member) =>
        browser && res.locals.viaCookie
          ? ok(withoutToken(member, (t, until) => browser.setMember(res, member.organizationId, t, until)))
          : ok(member),
      );
    }),
  );

  return router;
}
