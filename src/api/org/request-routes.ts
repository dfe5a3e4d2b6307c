import { Router, type Request, type RequestHandler, type Response } from 'express';
import { isRefusal, refuse } from '../../commands/refusal.js';
import type { EventContext } from '../../events/envelope.js';
import type { Permission } from '../../events/organization-events.js';
import type { OrgRequests, SendInput } from '../../requests/index.js';
import { jsonBody } from '../middleware/json-body.js';
import { sendRefusal } from '../refusals.js';
import { eventContext } from '../request-context.js';
import { objectAt, textAt, timestampAt } from '../fields.js';
import { memberOf } from './org-access.js';

/** Spec §4.3 list and detail, contract §4 send and cancel. Reads never append (no receipt, spec §6). */
export function requestRoutes(requests: OrgRequests, access: (p: Permission) => RequestHandler[], now: () => Date): Router {
  const router = Router();
  const context = (req: Request, res: Response): EventContext => eventContext(req, { kind: 'member', id: memberOf(res).identityId }, now());

  router.post('/org/v1/requests', ...access('request_manage'), jsonBody(), async (req, res) => {
    const input = sendBody(req.body);
    if (isRefusal(input)) return sendRefusal(res, input);
    const request = await requests.send(memberOf(res), input, context(req, res));
    if (isRefusal(request)) return sendRefusal(res, request);
    res.status(201).json({ request });
  });

  router.post('/org/v1/requests/:requestId/cancel', ...access('request_manage'), async (req, res) => {
    const request = await requests.cancel(memberOf(res).organizationId, String(req.params.requestId).toLowerCase(), context(req, res));
    if (isRefusal(request)) return sendRefusal(res, request);
    res.json({ request });
  });

  router.get('/org/v1/requests', ...access('request_read'), async (req, res) => {
    const email = req.query.email;
    if (email !== undefined && typeof email !== 'string')
      return sendRefusal(res, refuse('invalid_request', 'email must be a single string'));
    const list = await requests.list(memberOf(res).organizationId, email ?? null);
    if (isRefusal(list)) return sendRefusal(res, list);
    res.json({ requests: list });
  });

  router.get('/org/v1/requests/:requestId', ...access('request_read'), async (req, res) => {
    const detail = await requests.detail(memberOf(res).organizationId, String(req.params.requestId).toLowerCase());
    if (!detail) return sendRefusal(res, refuse('not_found', 'no such request'));
    res.json(detail);
  });

  return router;
}

function sendBody(body: unknown): SendInput | ReturnType<typeof refuse> {
  const fields = objectAt(body, 'body');
  if (isRefusal(fields)) return fields;
  const manifestId = textAt(fields.manifestId, 'manifestId', 100);
  if (isRefusal(manifestId)) return manifestId;
  const recipientEmail = textAt(fields.recipientEmail, 'recipientEmail', 320);
  if (isRefusal(recipientEmail)) return recipientEmail;
  const until = fields.invitationExpiresAt;
  if (until === undefined || until === null) return { manifestId, recipientEmail, invitationExpiresAt: null };
  const invitationExpiresAt = timestampAt(until, 'invitationExpiresAt');
  if (isRefusal(invitationExpiresAt)) return invitationExpiresAt;
  return { manifestId, recipientEmail, invitationExpiresAt };
}
