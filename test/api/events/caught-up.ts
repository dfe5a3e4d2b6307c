import type { TestService } from '../support/service.js';

/** The events feed follows the log on its own (R-FEED-06): waits until it has applied every event appended so far. */
export async function feedCaughtUp(service: TestService): Promise<void> {
  const head = (
    await service.db.query<{ commit: string; prepare: string }>(
      `SELECT transaction_id::text AS commit, position::text AS prepare FROM es.events
       ORDER BY transaction_id DESC, position DESC LIMIT 1`,
    )
  ).rows[0];
  if (head) await service.engine.waitFor({ commit: BigInt(head.commit), prepare: BigInt(head.prepare) });
}
