import { Router, type RequestHandler } from 'express';
import { isRefusal, refuse, type Refusal } from '../../commands/refusal.js';
import type { Permission } from '../../events/organization-events.js';
import { FEED_EVENT_TYPES, isFeedEventType, type EventsFeed, type FeedEventType } from '../../events-feed/index.js';
import { answer, ok, whenDone } from '../answer.js';
import { knownInput } from '../middleware/known-input.js';
import { pageQuery } from '../paging.js';
import { memberOf } from './org-access.js';

/** Contract §12: 100 events a page unless asked, at most 1000. */
const FEED_PAGE = { fallback: 100, max: 1000 };

/** R-FEED-01 to R-FEED-05: GET /org/v1/events, the organization's own events after a cursor (request_read). */
export function eventsRoutes(feed: EventsFeed, access: (p: Permission) => RequestHandler[]): Router {
  const router = Router();
  router.get(
    '/org/v1/events',
    ...access('request_read'),
    knownInput(),
    answer(async (req, res) => {
      const page = pageQuery(req.query, 'after', FEED_PAGE);
      if (isRefusal(page)) return page;
      const types = typesQuery(req.query.types);
      if (isRefusal(types)) return types;
      return whenDone(await feed.page(memberOf(res).organizationId, { after: page.from, limit: page.limit, types }), ok);
    }),
  );
  return router;
}

/** ?types=a,b: catalogue types, any of them, given once; null when absent (every type). */
function typesQuery(value: unknown): FeedEventType[] | null | Refusal {
  if (value === undefined) return null;
  const types = typeof value === 'string' ? value.split(',') : [];
  if (types.length === 0 || !types.every(isFeedEventType))
    return refuse('invalid_request', `types must be one or more of ${FEED_EVENT_TYPES.join(', ')}, separated by commas, given once`);
  return [...new Set(types)];
}
