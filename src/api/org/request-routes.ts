import { Router, type Request, type RequestHandler, type Response } from 'express';
import { isRefusal, refuse } from '../../commands/refusal.js';
import type { EventContext } from '../../events/envelope.js';
import type { Permission } from '../../events/organization-events.js';
import { isRequestState, REQUEST_STATES, type OrgRequests, type RequestStateName, type SendInput } from '../../requests/index.js';
import { jsonBody } from '../middleware/json-body.js';
import { knownInput } from '../middleware/known-input.js';
import { answer, created, ok, whenDone } from '../answer.js';
import { eventContext } from '../request-context.js';
import { objectAt, textAt, timestampAt } from '../fields.js';
import { memberOf } from './org-access.js';
import { idsOf, routeIds } from '../id-params.js';
import { parseId } from '../../ids.js';
import { pageQuery } from '../paging.js';

/** §10.6: the list pages 100 requests unless asked, at most 500; the history 500 entries. */
const LIST_PAGE = { fallback: 100, max: 500 };
const HISTORY_PAGE = { fallback: 500, max: 500 };

/** List and detail, send and cancel (R-REQ-01 to R-REQ-09). Reads never append (no receipt, R-REQ-08). */
export function requestRoutes(requests: OrgRequests, access: (p: Permission) => RequestHandler[], now: () => Date): Router {
  const router = Router();
  const request = routeIds({ requestId: 'no such request' });
  const context = (req: Request, res: Response): EventContext => eventContext(req, { kind: 'member', id: memberOf(res).identityId }, now());

  router.post(
    '/org/v1/requests',
    ...access('request_manage'),
    jsonBody(),
    answer(async (req, res) => {
      const input = sendBody(req.body);
      if (isRefusal(input)) return input;
      return whenDone(await requests.send(memberOf(res), input, context(req, res)), (request) => created({ request }));
    }),
  );

  router.post(
    '/org/v1/requests/:requestId/cancel',
    ...access('request_manage'),
    request,
    knownInput(),
    answer(async (req, res) => {
      const request = await requests.cancel(memberOf(res).organizationId, idsOf(res).requestId, context(req, res));
      return whenDone(request, (r) => ok({ request: r }));
    }),
  );

  router.get(
    '/org/v1/requests',
    ...access('request_read'),
    knownInput(),
    answer(async (req, res) => {
      const email = req.query.email;
      if (email !== undefined && typeof email !== 'string') return refuse('invalid_request', 'email must be a single string');
      const states = statesQuery(req.query.state);
      if (isRefusal(states)) return states;
      const page = pageQuery(req.query, 'cursor', LIST_PAGE);
      if (isRefusal(page)) return page;
      return whenDone(await requests.list(memberOf(res).organizationId, { email: email ?? null, states }, page), ok);
    }),
  );

  router.get(
    '/org/v1/requests/:requestId/history',
    ...access('request_read'),
    request,
    knownInput(),
    answer(async (req, res) => {
      const page = pageQuery(req.query, 'after', HISTORY_PAGE);
      if (isRefusal(page)) return page;
      return whenDone(await requests.history(memberOf(res).organizationId, idsOf(res).requestId, page), ok);
    }),
  );

  // Contract §14: the request's signed consent receipts, oldest first; the person reads the same ones.
  router.get(
    '/org/v1/requests/:requestId/receipts',
    ...access('request_read'),
    request,
    knownInput(),
    answer(async (_req, res) => whenDone(await requests.consentReceipts(memberOf(res).organizationId, idsOf(res).requestId), ok)),
  );

  router.get(
    '/org/v1/requests/:requestId',
    ...access('request_read'),
    request,
    knownInput(),
    answer(async (req, res) => {
      const detail = await requests.detail(memberOf(res).organizationId, idsOf(res).requestId);
      return detail ? ok(detail) : refuse('not_found', 'no such request');
    }),
  );

  return router;
}

/** R-REQ-32, ?state=a,b: the states a member sees (the summaries'), any of them; null when absent. */
function statesQuery(value: unknown): RequestStateName[] | null | ReturnType<typeof refuse> {
  if (value === undefined) return null;
  const states = typeof value === 'string' ? value.split(',') : [];
  if (states.length === 0 || !states.every(isRequestState))
    return refuse('invalid_request', `state must be one or more of ${REQUEST_STATES.join(', ')}, separated by commas, given once`);
  return [...new Set(states)];
}

function sendBody(body: unknown): SendInput | ReturnType<typeof refuse> {
  const fields = objectAt(body, 'body');
  if (isRefusal(fields)) return fields;
  const manifestText = textAt(fields.manifestId, 'manifestId', 100);
  if (isRefusal(manifestText)) return manifestText;
  const manifestId = parseId<'manifest'>(manifestText);
  const recipientEmail = textAt(fields.recipientEmail, 'recipientEmail', 320);
  if (isRefusal(recipientEmail)) return recipientEmail;
  const until = fields.invitationExpiresAt;
  if (until === undefined || until === null) return { manifestId, recipientEmail, invitationExpiresAt: null };
  const invitationExpiresAt = timestampAt(until, 'invitationExpiresAt');
  if (isRefusal(invitationExpiresAt)) return invitationExpiresAt;
  return { manifestId, recipientEmail, invitationExpiresAt };
}
