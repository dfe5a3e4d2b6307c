import type { RequestHandler, Response } from 'express';
import { refuse } from '../commands/refusal.js';
import { parseId, type AdoptionId, type FeedEventId, type ProposalId, type RequestId, type SlotId, type WebhookId } from '../ids.js';
import { sendRefusal } from './refusals.js';

/** The ids a route's path names, each parsed once here into its branded form. */
export type RouteIds = {
  readonly requestId: RequestId;
  readonly slotId: SlotId;
  readonly proposalId: ProposalId;
  readonly adoptionId: AdoptionId;
  readonly webhookId: WebhookId;
  readonly eventId: FeedEventId;
};

/**
 * Parses the path's ids, in the order given, after authentication: an id that is no UUID names
 * nothing and answers the 404 an unknown one gets (R-HTTP-11), so the services below take only
 * parsed ids. `unknown` is each id's 404 detail.
 */
export function routeIds(unknown: { readonly [N in keyof RouteIds]?: string }): RequestHandler {
  const names = Object.keys(unknown) as (keyof RouteIds)[];
  return (req, res, next) => {
    const ids: Partial<Record<keyof RouteIds, string>> = {};
    for (const name of names) {
      const id = parseId(String(req.params[name] ?? ''));
      if (id === null) return sendRefusal(res, refuse('not_found', unknown[name]!));
      ids[name] = id;
    }
    res.locals.ids = ids;
    next();
  };
}

/** The ids routeIds parsed for this request. */
export const idsOf = (res: Response): RouteIds => res.locals.ids as RouteIds;
