import { Router, type Request, type RequestHandler, type Response } from 'express';
import { isAnyRefusal, type AnyRefusal } from '../../commands/refusal.js';
import type { FileService } from '../../files/index.js';
import { callerOf, type Authenticator } from '../auth/authenticate.js';
import { answer, created, whenDone } from '../answer.js';
import { knownInput } from '../middleware/known-input.js';
import { sendRefusal } from '../refusals.js';
import { eventContext } from '../request-context.js';
import { sendAttachment } from './send-attachment.js';
import { fileMeta, newFileParams, uploadBody, versionParam } from './file-params.js';

/**
 * The file routes, user token (R-FILE-01 to R-FILE-06). Bodies are raw bytes, streamed into the files
 * service, never parsed; `slot` counts them among the uploads in flight (R-LIM-11).
 */
export function fileRoutes(files: FileService, auth: Authenticator, slot: RequestHandler, now: () => Date): Router {
  const router = Router();
  const context = (req: Request, res: Response) => eventContext(req, { kind: 'user', id: callerOf(res).identityId }, now());

  router.post(
    '/vault/files',
    auth.require('user'),
    slot,
    answer(async (req, res) => {
      const input = newFileParams(req);
      if (isAnyRefusal(input)) return input;
      return whenDone(await files.upload(callerOf(res), input, uploadBody(req), context(req, res)), created);
    }, refuseUpload),
  );

  router.post(
    '/vault/files/:fileId/versions',
    auth.require('user'),
    slot,
    answer(async (req, res) => {
      const meta = fileMeta(req);
      if (isAnyRefusal(meta)) return meta;
      return whenDone(await files.addVersion(callerOf(res), String(req.params.fileId), meta, uploadBody(req), context(req, res)), created);
    }, refuseUpload),
  );

  router.get('/vault/files/:fileId', auth.require('user'), knownInput(), async (req, res) => {
    const version = versionParam(req);
    if (isAnyRefusal(version)) return sendRefusal(res, version);
    const file = await files.download(callerOf(res), String(req.params.fileId), version);
    if (isAnyRefusal(file)) return sendRefusal(res, file);
    sendAttachment(res, file, { 'X-File-Version': String(file.version) });
  });

  return router;
}

/**
 * A refusal while the client may still be sending: the rest of the body is read and dropped,
 * never stored, and the connection closes after the answer instead of waiting for the next request.
 */
export function refuseUpload(req: Request, res: Response, refusal: AnyRefusal): void {
  if (!req.complete) {
    res.set('Connection', 'close');
    req.resume();
  }
  sendRefusal(res, refusal);
}
