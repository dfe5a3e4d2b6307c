import type { ConsentReceiptIssued } from '../../events/consent-receipt-events.js';
import { refuse } from '../refusal.js';
import { receiptChainDecision } from './consent-receipt-state.js';

/** The receipt as signed for the chain's next place. */
export type IssueConsentReceipt = { readonly receipt: ConsentReceiptIssued['data']; readonly prev: string | null };

/**
 * R-CREC-02: one receipt per consent transition, each next in its request's chain: a cause receipted
 * already changes nothing (a replayed or repeated reaction); a receipt signed for another place in
 * the chain (another instance issued one meanwhile) is refused, to be signed again for the new place.
 */
export const issueConsentReceipt = receiptChainDecision<IssueConsentReceipt>((chain, cmd) => {
  if (chain.causes.has(cmd.receipt.causeEventId)) return [];
  if (cmd.receipt.seq !== chain.seq + 1 || cmd.prev !== chain.digest)
    return refuse('conflict', `receipt ${cmd.receipt.seq} was signed for another place in the chain (it is at ${chain.seq})`);
  return [{ type: 'ConsentReceiptIssued', data: cmd.receipt }];
});
