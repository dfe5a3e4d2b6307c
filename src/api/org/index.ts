/** The organization plane's REST routes under /org/v1 (R-ORG-*, R-MAN-*, R-REQ-01 to R-REQ-09, R-FEED-*, R-HOOK-*). */
import { Router, type RequestHandler } from 'express';
import type { OrganizationPlane } from '../../organizations/index.js';
import type { Authenticator } from '../auth/authenticate.js';
import { underPrefix } from '../middleware/under-prefix.js';
import { manifestRoutes } from './manifest-routes.js';
import { memberRoutes } from './member-routes.js';
import { orgAccess } from './org-access.js';
import { organizationRoutes } from './organization-routes.js';
import { requestRoutes } from './request-routes.js';
import type { Copies } from '../../copies/index.js';
import type { ProposalService } from '../../proposals/proposal-service.js';
import type { RequestPlane } from '../../requests/index.js';
import { copyRoutes } from './copy-routes.js';
import { proposalRoutes } from './proposal-routes.js';
import { eventsRoutes } from './events-routes.js';
import type { EventsFeed } from '../../events-feed/index.js';
import type { BrowserSessions } from '../web/browser-session.js';
import type { Webhooks } from '../../webhooks/index.js';
import { webhookRoutes } from './webhook-routes.js';

export { memberOf, orgAccess } from './org-access.js';

export function orgRoutes(
  plane: OrganizationPlane,
  auth: Authenticator,
  now: () => Date,
  requests: {
    readonly org: RequestPlane['org'];
    readonly copies: Copies;
    readonly proposals: ProposalService;
    readonly uploadSlot: RequestHandler;
    readonly feed: EventsFeed;
    readonly webhooks: Pick<Webhooks, 'service' | 'policy'>;
  },
  browser?: BrowserSessions,
): Router {
  const access = orgAccess(auth);
  const router = Router();
  router.use(organizationRoutes(plane.organizations, plane.key, auth, now, browser));
  router.use(memberRoutes(plane.organizations, plane.key, access, now, plane.redirectPolicy));
  router.use(underPrefix('/org/v1/manifests', manifestRoutes(plane.manifests, access, now)));
  router.use(underPrefix('/org/v1/requests', requestRoutes(requests.org, access, now)));
  router.use(underPrefix('/org/v1/requests', copyRoutes(requests.copies, access, requests.uploadSlot, now)));
  router.use(underPrefix('/org/v1/requests', proposalRoutes(requests.proposals, access, now)));
  router.use(underPrefix('/org/v1/events', eventsRoutes(requests.feed, access)));
  router.use(underPrefix('/org/v1/webhooks', webhookRoutes(requests.webhooks, access, now)));
  return router;
}
