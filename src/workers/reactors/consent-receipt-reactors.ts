import type { ConsentReceiptIssuer } from '../../consent-receipts/consent-receipts.js';
import { TRANSITIONS } from '../../consent-receipts/receipt-payload.js';
import { requestEvents, type RequestEvent } from '../../events/request-events.js';
import { reactor, type Reactions, type Reactor } from '../reactor.js';

/**
 * R-CREC-02: every consent transition in the log gets its receipt. A reactor, so a crash between the
 * event and its receipt loses none (the reaction runs again from the checkpoint) and a replay of the
 * read models issues none (reactors keep their own checkpoints); the chain's decider issues one per cause.
 */
export function issueConsentReceipts(receipts: Pick<ConsentReceiptIssuer, 'issue'>): Reactor {
  const on = Object.fromEntries(Object.keys(TRANSITIONS).map((type) => [type, receipts.issue.bind(receipts)])) as Reactions<RequestEvent>;
  return reactor({ name: 'consent_receipts', events: requestEvents, on });
}
