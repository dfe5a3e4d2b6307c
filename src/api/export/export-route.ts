import { Router, type NextFunction, type RequestHandler, type Response } from 'express';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { refuse } from '../../commands/refusal.js';
import type { ExportLinks } from '../../export/export-links.js';
import type { ExportLine } from '../../export/export-lines.js';
import { EXPORT_BUSY_RETRY_SECONDS, type ExportTurn, type ExportTurns } from '../../export/export-turns.js';
import { jsonPieces } from '../../export/json-text.js';
import type { Caller } from '../../identity/identity-service.js';
import { sessionBucket, type FairUse } from '../../limits/fair-use.js';
import type { Logger } from '../../logger.js';
import type { Authenticator } from '../auth/authenticate.js';
import { callerOf } from '../auth/authenticate.js';
import { knownInput } from '../middleware/known-input.js';
import { sendRefusal } from '../refusals.js';

export type ExportRouteDeps = {
  readonly auth: Authenticator;
  readonly links: Pick<ExportLinks, 'holder' | 'redeem'>;
  readonly turns: Pick<ExportTurns, 'take'>;
  readonly fairUse: Pick<FairUse, 'admit'>;
  readonly lines: (caller: Caller) => AsyncIterable<ExportLine>;
  readonly logger: Pick<Logger, 'error'>;
  readonly now: () => Date;
};

/** Text gathered before it is written, so short lines go out together; at most this plus a piece, under V8's large-object size. */
const WRITE_CHARS = 16 * 1024;

const unknownLink = () => refuse('unauthenticated', 'the export link is unknown, used or expired');

/**
 * R-EXP-01, R-EXP-02: GET /vault/export streams the caller's archive as JSON lines, to a user
 * token or to a one-time link from user.export (`?link=`), which stands in for the token.
 * R-EXP-03: the text is produced as it is sent, at the pace the client reads (pipeline's
 * back-pressure), so the service holds a piece of it at a time whatever the vault's size.
 * R-EXP-04: one export per person at a time. R-EXP-06: a download by link counts against the
 * fair use of the session that made the link, as one by its token does.
 */
export function exportRoute(deps: ExportRouteDeps): Router {
  const router = Router();
  const bearer = deps.auth.require('user');
  const byLinkOrToken: RequestHandler = (req, res, next) => {
    const link = req.query.link;
    if (link === undefined) return bearer(req, res, next);
    void byLink(res, next, typeof link === 'string' ? link : '');
  };
  const byLink = async (res: Response, next: NextFunction, link: string) => {
    try {
      const caller = await deps.links.holder(link);
      if (!caller) return sendRefusal(res, unknownLink());
      const wait = deps.fairUse.admit(sessionBucket('user', caller.sessionId), null);
      if (wait > 0) return sendRefusal(res, refuse('rate_limited', 'too many requests for this session; slow down', wait));
      res.locals.caller = caller;
      next();
    } catch (e) {
      next(e);
    }
  };

  // HEAD (which express routes here) would take the person's turn and use the link up for an archive nobody reads.
  const getOnly: RequestHandler = (req, res, next) => (req.method === 'HEAD' ? void res.status(405).set('Allow', 'GET').end() : next());
  router.get('/vault/export', getOnly, byLinkOrToken, knownInput(), async (req, res, next) => {
    const caller = callerOf(res);
    let turn: ExportTurn | null = null;
    try {
      turn = await deps.turns.take(caller.identityId);
      if (!turn) {
        return sendRefusal(res, refuse('rate_limited', 'an export of yours is running: one at a time', EXPORT_BUSY_RETRY_SECONDS));
      }
      // Used up only now, so a download refused above leaves the link good.
      const link = req.query.link;
      if (typeof link === 'string' && !(await deps.links.redeem(link))) return sendRefusal(res, unknownLink());
      await stream(caller, res, next, turn);
    } catch (e) {
      next(e);
    } finally {
      await turn?.();
    }
  });

  const stream = async (caller: Caller, res: Response, next: NextFunction, turn: ExportTurn) => {
    const lines = deps.lines(caller)[Symbol.asyncIterator]();
    let first: IteratorResult<ExportLine>;
    // Until the first line is ready a failure can still answer as a problem.
    try {
      first = await lines.next();
    } catch (e) {
      return next(e);
    }
    res.status(200);
    res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="export-${deps.now().toISOString().slice(0, 10)}.jsonl"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    let failure: unknown = null;
    const text = async function* (): AsyncGenerator<string> {
      try {
        yield* archiveText(first, lines, turn);
      } catch (e) {
        failure = e;
        throw e;
      }
    };
    try {
      await pipeline(Readable.from(text(), { objectMode: false }), res);
    } catch (e) {
      // Headers are gone: the archive is cut without its closing `end` line, which tells the client.
      // A client that went away is no failure of ours.
      if (failure) deps.logger.error({ err: e }, 'export failed while streaming');
    }
  };
  return router;
}

/**
 * The archive's text, one JSON value a line, short pieces gathered up to WRITE_CHARS. R-EXP-04: the
 * turn goes back once every line is read, before the last piece (the `end` line) is written, so a
 * client holding the whole archive may start the next export at once.
 */
async function* archiveText(first: IteratorResult<ExportLine>, rest: AsyncIterator<ExportLine>, turn: ExportTurn): AsyncGenerator<string> {
  let pending = '';
  try {
    for (let step = first; !step.done; step = await rest.next()) {
      for await (const piece of jsonPieces(step.value)) {
        if (pending.length >= WRITE_CHARS) {
          yield pending;
          pending = '';
        }
        pending += piece;
      }
      pending += '\n';
    }
    await turn();
    if (pending) yield pending;
  } finally {
    await rest.return?.();
  }
}
