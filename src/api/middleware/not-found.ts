import type { RequestHandler } from 'express';
import { refuse } from '../../commands/refusal.js';
import { sendRefusal } from '../refusals.js';

/** Last in the chain: no route took the request. */
export function notFound(): RequestHandler {
  return (_req, res) => {
    sendRefusal(res, refuse('not_found', 'there is no such resource'));
  };
}
