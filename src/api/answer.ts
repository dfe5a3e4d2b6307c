import type { Request, RequestHandler, Response } from 'express';
import { isAnyRefusal, type AnyRefusal } from '../commands/refusal.js';
import { sendRefusal } from './refusals.js';

/** What a route answers when nothing refused: a status and a JSON body. */
export type Answer = { readonly status: number; readonly body: unknown };

export const ok = (body: unknown): Answer => ({ status: 200, body });
export const created = (body: unknown): Answer => ({ status: 201, body });

/** `reply(value)` when the step gave a value; the step's refusal as it is otherwise. */
export function whenDone<T>(result: T | AnyRefusal, reply: (value: T) => Answer): Answer | AnyRefusal {
  return isAnyRefusal(result) ? result : reply(result);
}

type Refuser = (req: Request, res: Response, refusal: AnyRefusal) => void;

/**
 * A route whose handler returns what it decided: its answer, or the refusal of the first step that
 * refused. The one place a route's refusal is sent (as problem+json, docs/rules.md R-HTTP-01), so a
 * handler never writes the response on two paths. Uploads pass their own refuser, which also
 * closes a connection whose body is still arriving.
 */
export function answer(
  handler: (req: Request, res: Response) => Promise<Answer | AnyRefusal>,
  refuse: Refuser = (_req, res, refusal) => sendRefusal(res, refusal),
): RequestHandler {
  return async (req, res) => {
    const result = await handler(req, res);
    if (isAnyRefusal(result)) return refuse(req, res, result);
    res.status(result.status).json(result.body);
  };
}
