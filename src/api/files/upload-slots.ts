import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { refuse } from '../../commands/refusal.js';
import { callerOf } from '../auth/authenticate.js';
import { sendRefusal } from '../refusals.js';

export type UploadSlotLimits = {
  /** MAX_UPLOADS_PER_USER: uploads one user may have streaming at once on this instance. */
  readonly perUser: number;
  /** MAX_UPLOADS_TOTAL: uploads this instance streams at once. */
  readonly total: number;
};

/** Told the number of uploads in flight on every change (the uploads_in_flight gauge). */
export type InFlightGauge = { set(value: number): void };

/**
 * An upload holds its sealed bytes in memory until the blob is stored (up to MAX_FILE_BYTES, twice
 * that while the driver encodes it), so the process's memory is bounded only if the number of
 * uploads in flight is. Counted per instance, because memory is. A slot is held until the answer
 * is sent or the connection drops, and is then freed exactly once.
 */
export function uploadSlots(limits: UploadSlotLimits, inFlight: InFlightGauge): RequestHandler {
  const perUser = new Map<string, number>();
  let total = 0;
  return (req: Request, res: Response, next: NextFunction) => {
    const user = callerOf(res).identityId;
    const mine = perUser.get(user) ?? 0;
    if (mine >= limits.perUser || total >= limits.total) {
      // The body is never read: close the connection after the answer instead of draining it.
      res.set('Connection', 'close');
      const whose =
        mine >= limits.perUser ? `at most ${limits.perUser} uploads at once per user` : 'the service is taking too many uploads at once';
      return sendRefusal(res, refuse('rate_limited', `${whose}; try again shortly`, 1));
    }
    perUser.set(user, mine + 1);
    inFlight.set(++total);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      inFlight.set(--total);
      const left = (perUser.get(user) ?? 1) - 1;
      if (left === 0) perUser.delete(user);
      else perUser.set(user, left);
    };
    res.once('finish', release);
    res.once('close', release);
    next();
  };
}
