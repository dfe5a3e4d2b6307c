import type { ConsentReceiptIssuer } from '../consent-receipts/consent-receipts.js';
import type { SqlDb } from '../db/sql.js';
import type { EventStore } from '../events/store.js';
import type { Logger } from '../logger.js';
import type { SharedLogReads } from '../events/recent-events.js';
import { ReactorRunner, runTogether, type Workers } from './reactor-runner.js';
import { issueConsentReceipts } from './reactors/consent-receipt-reactors.js';

export type ConsentReceiptWorkerDeps = {
  readonly db: SqlDb;
  readonly store: Pick<EventStore, 'readAll' | 'onAppended'>;
  readonly receipts: Pick<ConsentReceiptIssuer, 'issue'>;
  readonly logger: Logger;
  readonly reactorPollMs?: number;
  /** The instance's one reader of the log (ReactorRunnerOptions.reads). */
  readonly reads?: SharedLogReads;
};

/** Contract §14: the reactor that issues the consent receipts, started and stopped with the service. */
export async function startConsentReceiptWorkers(deps: ConsentReceiptWorkerDeps): Promise<Workers> {
  const runner = new ReactorRunner({
    db: deps.db,
    store: deps.store,
    reactors: [issueConsentReceipts(deps.receipts)],
    logger: deps.logger,
    reads: deps.reads,
    ...(deps.reactorPollMs === undefined ? {} : { idlePollMs: deps.reactorPollMs }),
  });
  return runTogether(runner, []);
}
