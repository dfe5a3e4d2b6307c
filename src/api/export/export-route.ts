import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { refuse } from '../../commands/refusal.js';
import type { ExportLinks } from '../../export/export-links.js';
import type { ExportLine } from '../../export/export-lines.js';
import type { Caller } from '../../identity/identity-service.js';
import type { Logger } from '../../logger.js';
import type { Authenticator } from '../auth/authenticate.js';
import { callerOf } from '../auth/authenticate.js';
import { sendRefusal } from '../refusals.js';

export type ExportRouteDeps = {
  readonly auth: Authenticator;
  readonly links: ExportLinks;
  readonly lines: (caller: Caller) => AsyncIterable<ExportLine>;
  readonly logger: Pick<Logger, 'error'>;
  readonly now: () => Date;
};

/**
 * R-EXP-01, R-EXP-02: GET /vault/export streams the caller's archive as JSON lines, to a user
 * token or to a one-time link from user.export (`?link=`), which stands in for the token.
 */
export function exportRoute(deps: ExportRouteDeps): Router {
  const router = Router();
  const bearer = deps.auth.require('user');
  const byLinkOrToken: RequestHandler = (req, res, next) => {
    const link = req.query.link;
    if (link === undefined) return bearer(req, res, next);
    void redeem(req, res, next, typeof link === 'string' ? link : '');
  };
  const redeem = async (_req: Request, res: Response, next: NextFunction, link: string) => {
    try {
      const caller = await deps.links.redeem(link);
      if (!caller) return sendRefusal(res, refuse('unauthenticated', 'the export link is unknown, used or expired'));
      res.locals.caller = caller;
      next();
    } catch (e) {
      next(e);
    }
  };

  router.get('/vault/export', byLinkOrToken, async (req, res, next) => {
    const caller = callerOf(res);
    const iterator = deps.lines(caller)[Symbol.asyncIterator]();
    let first: IteratorResult<ExportLine>;
    // Until the first line is ready a failure can still answer as a problem.
    try {
      first = await iterator.next();
    } catch (e) {
      return next(e);
    }
    res.status(200);
    res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="export-${deps.now().toISOString().slice(0, 10)}.jsonl"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    try {
      for (let step = first; !step.done; step = await iterator.next()) {
        if (!res.write(`${JSON.stringify(step.value)}\n`)) await drainedOrClosed(res);
        if (res.destroyed) return;
      }
      res.end();
    } catch (e) {
      // Headers are gone: the archive is cut without its closing `end` line, which tells the client.
      deps.logger.error({ err: e }, 'export failed while streaming');
      res.destroy();
    }
  });
  return router;
}

/** A client that stops reading never drains: its close ends the wait as well. */
function drainedOrClosed(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
