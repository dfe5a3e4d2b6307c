import { Router, type Request, type RequestHandler, type Response } from 'express';
import { isAnyRefusal, refuse } from '../../commands/refusal.js';
import type { Copies } from '../../copies/index.js';
import type { EventContext } from '../../events/envelope.js';
import type { Permission } from '../../events/organization-events.js';
import { answer, created, ok, whenDone } from '../answer.js';
import { fileMeta, uploadBody } from '../files/file-params.js';
import { refuseUpload } from '../files/file-routes.js';
import { sendAttachment } from '../files/send-attachment.js';
import { dataAt, fieldOf, integerAt, objectAt, textAt } from '../fields.js';
import { jsonBody } from '../middleware/json-body.js';
import { knownInput } from '../middleware/known-input.js';
import { sendRefusal } from '../refusals.js';
import { eventContext } from '../request-context.js';
import { memberOf } from './org-access.js';
import { parseId } from '../../ids.js';
import { idsOf, routeIds } from '../id-params.js';

const NO_REQUEST = 'no such request';
const NO_SLOT = 'no such slot in the manifest version this request pins';

/**
 * Keep, drain, copies, download, correct, delete and attach (R-KEEP-*, R-COPY-*, R-ERAS-02): request_manage,
 * the organization's own requests only.
 */
export function copyRoutes(copies: Copies, access: (p: Permission) => RequestHandler[], slot: RequestHandler, now: () => Date): Router {
  const router = Router();
  const context = (req: Request, res: Response): EventContext => eventContext(req, { kind: 'member', id: memberOf(res).identityId }, now());
  const request = routeIds({ requestId: NO_REQUEST });
  const requestSlot = routeIds({ requestId: NO_REQUEST, slotId: NO_SLOT });
  const requestAdoption = routeIds({ requestId: NO_REQUEST, adoptionId: 'no such adoption' });

  router.post(
    '/org/v1/requests/:requestId/slots/:slotId/adopt',
    ...access('request_manage'),
    requestSlot,
    jsonBody(),
    answer(async (req, res) => {
      const alias = fieldOf(req.body, 'participant');
      const participant = alias === undefined || alias === null ? null : textAt(alias, 'participant', 100);
      if (isAnyRefusal(participant)) return participant;
      const { requestId, slotId } = idsOf(res);
      return whenDone(await copies.keeping.keep(memberOf(res).organizationId, requestId, slotId, participant, context(req, res)), ok);
    }),
  );

  router.post(
    '/org/v1/requests/:requestId/adoptions/drain',
    ...access('request_manage'),
    request,
    knownInput(),
    answer(async (req, res) =>
      whenDone(await copies.drains.drain(memberOf(res).organizationId, idsOf(res).requestId, context(req, res)), ok),
    ),
  );

  router.get(
    '/org/v1/requests/:requestId/copies',
    ...access('request_manage'),
    request,
    knownInput(),
    answer(async (req, res) => whenDone(await copies.reads.copies(memberOf(res).organizationId, idsOf(res).requestId), ok)),
  );

  router.delete(
    '/org/v1/requests/:requestId/copies/:adoptionId',
    ...access('request_manage'),
    requestAdoption,
    knownInput(),
    answer(async (req, res) => {
      const { requestId } = idsOf(res);
      return whenDone(await copies.deletion.delete(memberOf(res).organizationId, requestId, idsOf(res).adoptionId, context(req, res)), ok);
    }),
  );

  router.get(
    '/org/v1/requests/:requestId/copies/:adoptionId/download',
    ...access('request_manage'),
    requestAdoption,
    knownInput(),
    async (req, res) => {
      const file = await copies.reads.download(memberOf(res).organizationId, idsOf(res).requestId, idsOf(res).adoptionId);
      if (isAnyRefusal(file)) return sendRefusal(res, file);
      sendAttachment(res, file);
    },
  );

  router.post(
    '/org/v1/requests/:requestId/slots/:slotId/correct',
    ...access('request_manage'),
    requestSlot,
    jsonBody(),
    answer(async (req, res) => {
      const body = objectAt(req.body, 'body');
      if (isAnyRefusal(body)) return body;
      const source = body.sourceResourceId;
      const sourceText = source === undefined || source === null ? null : textAt(source, 'sourceResourceId', 100);
      if (isAnyRefusal(sourceText)) return sourceText;
      const sourceResourceId = sourceText === null ? null : parseId<'resource'>(sourceText);
      if (sourceText !== null && sourceResourceId === null)
        return refuse('invalid_request', 'sourceResourceId must be a resource id (a UUID)');
      const expectedSourceVersion = integerAt(body.expectedSourceVersion, 'expectedSourceVersion', 1);
      if (isAnyRefusal(expectedSourceVersion)) return expectedSourceVersion;
      const expectedOrgVersion = integerAt(body.expectedOrgVersion, 'expectedOrgVersion', 1);
      if (isAnyRefusal(expectedOrgVersion)) return expectedOrgVersion;
      if (body.data === undefined) return refuse('invalid_request', 'data is required');
      const data = dataAt(body.data, 'data');
      if (isAnyRefusal(data)) return data;
      const { requestId, slotId } = idsOf(res);
      const input = { sourceResourceId, expectedSourceVersion, expectedOrgVersion, data };
      return whenDone(await copies.corrections.correct(memberOf(res).organizationId, requestId, slotId, input, context(req, res)), ok);
    }),
  );

  router.get(
    '/org/v1/requests/:requestId/files',
    ...access('request_manage'),
    request,
    knownInput(),
    answer(async (req, res) => whenDone(await copies.reads.files(memberOf(res).organizationId, idsOf(res).requestId), ok)),
  );

  router.post(
    '/org/v1/requests/:requestId/files',
    ...access('request_manage'),
    request,
    slot,
    answer(async (req, res) => {
      const meta = fileMeta(req);
      if (isAnyRefusal(meta)) return meta;
      const attached = await copies.attachments.attach(
        memberOf(res).organizationId,
        idsOf(res).requestId,
        meta,
        uploadBody(req),
        context(req, res),
      );
      return whenDone(attached, created);
    }, refuseUpload),
  );

  return router;
}
