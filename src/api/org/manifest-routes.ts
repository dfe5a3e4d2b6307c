import { Router, type Request, type RequestHandler, type Response } from 'express';
import { isRefusal, refuse } from '../../commands/refusal.js';
import type { EventContext } from '../../events/envelope.js';
import type { Permission } from '../../events/organization-events.js';
import type { ManifestService } from '../../organizations/index.js';
import { jsonBody } from '../middleware/json-body.js';
import { knownInput } from '../middleware/known-input.js';
import { sendRefusal } from '../refusals.js';
import { answer, created, ok, whenDone } from '../answer.js';
import { eventContext } from '../request-context.js';
import { manifestBody, versionBody } from './manifest-body.js';
import { memberOf } from './org-access.js';

const notFound = refuse('not_found', 'no such manifest');

/** Manifests and their versions (R-MAN-01 to R-MAN-06); another organization's manifest is not found. */
export function manifestRoutes(manifests: ManifestService, access: (p: Permission) => RequestHandler[], now: () => Date): Router {
  const router = Router();
  const context = (req: Request, res: Response): EventContext => eventContext(req, { kind: 'member', id: memberOf(res).identityId }, now());

  router.post(
    '/org/v1/manifests',
    ...access('manifest_manage'),
    jsonBody(),
    answer(async (req, res) => {
      const input = manifestBody(req.body);
      if (isRefusal(input)) return input;
      const manifest = await manifests.create(memberOf(res).organizationId, input, context(req, res));
      return whenDone(manifest, (m) => created({ manifest: m }));
    }),
  );

  // 404 before 400 (R-ORG-08): an unknown manifest is that, whatever the body says.
  const known: RequestHandler = async (req, res, next) => {
    if (!(await manifests.exists(memberOf(res).organizationId, String(req.params.manifestId).toLowerCase())))
      return sendRefusal(res, notFound);
    next();
  };

  router.post(
    '/org/v1/manifests/:manifestId/versions',
    ...access('manifest_manage'),
    known,
    jsonBody(),
    answer(async (req, res) => {
      const input = versionBody(req.body);
      if (isRefusal(input)) return input;
      const { organizationId } = memberOf(res);
      const manifest = await manifests.publishVersion(
        organizationId,
        String(req.params.manifestId).toLowerCase(),
        input,
        context(req, res),
      );
      return whenDone(manifest, (m) => created({ manifest: m }));
    }),
  );

  router.get(
    '/org/v1/manifests',
    ...access('request_read'),
    knownInput(),
    answer(async (_req, res) => ok({ manifests: await manifests.list(memberOf(res).organizationId) })),
  );

  router.get(
    '/org/v1/manifests/:manifestId',
    ...access('request_read'),
    knownInput(),
    answer(async (req, res) => {
      const version = versionParam(req.query.version);
      if (isRefusal(version)) return version;
      const manifest = await manifests.get(memberOf(res).organizationId, String(req.params.manifestId).toLowerCase(), version);
      return manifest ? ok({ manifest }) : notFound;
    }),
  );

  return router;
}

function versionParam(value: unknown) {
  if (value === undefined) return null;
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,8}$/.test(value)) return refuse('invalid_request', 'version must be a positive integer');
  return Number(value);
}
