import { Router, type Request, type RequestHandler, type Response } from 'express';
import { isRefusal, refuse, type Refusal } from '../../commands/refusal.js';
import type { EventContext } from '../../events/envelope.js';
import type { Permission } from '../../events/organization-events.js';
import { FEED_EVENT_TYPES } from '../../events-feed/index.js';
import { MAX_URL_LENGTH, parseWebhookUrl, type Webhooks, type WebhookInput } from '../../webhooks/index.js';
import { answer, created, ok, whenDone, type Answer } from '../answer.js';
import { objectAt, subsetAt, textAt } from '../fields.js';
import { idsOf, routeIds } from '../id-params.js';
import { jsonBody } from '../middleware/json-body.js';
import { knownInput } from '../middleware/known-input.js';
import { pageQuery } from '../paging.js';
import { eventContext } from '../request-context.js';
import { memberOf } from './org-access.js';

const MAX_DESCRIPTION = 500;
/** §10.6: the delivery log pages 100 attempts unless asked, at most 500. */
const LOG_PAGE = { fallback: 100, max: 500 };

const accepted = (body: unknown): Answer => ({ status: 202, body });

/** R-HOOK-01 to R-HOOK-06: the organization's webhooks (member_manage); another organization's is not found. */
export function webhookRoutes(
  webhooks: Pick<Webhooks, 'service' | 'policy'>,
  access: (p: Permission) => RequestHandler[],
  now: () => Date,
): Router {
  const router = Router();
  const { service } = webhooks;
  const webhook = routeIds({ webhookId: 'no such webhook' });
  const delivery = routeIds({ webhookId: 'no such webhook', eventId: 'no delivery of this event to this webhook' });
  const context = (req: Request, res: Response): EventContext => eventContext(req, { kind: 'member', id: memberOf(res).identityId }, now());

  router.post(
    '/org/v1/webhooks',
    ...access('member_manage'),
    jsonBody(),
    answer(async (req, res) => {
      const input = webhookBody(req.body, webhooks.policy);
      if (isRefusal(input)) return input;
      return whenDone(await service.create(memberOf(res), input, context(req, res)), created);
    }),
  );

  router.get(
    '/org/v1/webhooks',
    ...access('member_manage'),
    knownInput(),
    answer(async (_req, res) => ok({ webhooks: await service.list(memberOf(res).organizationId) })),
  );

  router.delete(
    '/org/v1/webhooks/:webhookId',
    ...access('member_manage'),
    webhook,
    knownInput(),
    answer(async (req, res) =>
      whenDone(await service.remove(memberOf(res), idsOf(res).webhookId, context(req, res)), () => ok({ deleted: true })),
    ),
  );

  router.get(
    '/org/v1/webhooks/:webhookId/deliveries',
    ...access('member_manage'),
    webhook,
    knownInput(),
    answer(async (req, res) => {
      const page = pageQuery(req.query, 'cursor', LOG_PAGE);
      if (isRefusal(page)) return page;
      return whenDone(await service.deliveries(memberOf(res).organizationId, idsOf(res).webhookId, page), ok);
    }),
  );

  router.post(
    '/org/v1/webhooks/:webhookId/deliveries/:eventId/retry',
    ...access('member_manage'),
    delivery,
    knownInput(),
    answer(async (req, res) => {
      const { webhookId, eventId } = idsOf(res);
      return whenDone(await service.retry(memberOf(res), webhookId, eventId, context(req, res)), accepted);
    }),
  );

  router.post(
    '/org/v1/webhooks/:webhookId/test',
    ...access('member_manage'),
    webhook,
    knownInput(),
    answer(async (req, res) => whenDone(await service.test(memberOf(res), idsOf(res).webhookId, context(req, res)), accepted)),
  );

  return router;
}

/** {url, eventTypes, description?}: the URL's rules (R-HOOK-02), catalogue types (at least one), a short description. */
function webhookBody(raw: unknown, policy: Webhooks['policy']): WebhookInput | Refusal {
  const body = objectAt(raw, 'body');
  if (isRefusal(body)) return body;
  const text = textAt(body.url, 'url', MAX_URL_LENGTH);
  if (isRefusal(text)) return text;
  const url = parseWebhookUrl(text, policy);
  if (typeof url === 'string') return refuse('invalid_request', url);
  const eventTypes = subsetAt(body.eventTypes, 'eventTypes', FEED_EVENT_TYPES);
  if (isRefusal(eventTypes)) return eventTypes;
  const description =
    body.description === undefined || body.description === null ? null : textAt(body.description, 'description', MAX_DESCRIPTION, 'free');
  if (isRefusal(description)) return description;
  return { url, eventTypes, description };
}
