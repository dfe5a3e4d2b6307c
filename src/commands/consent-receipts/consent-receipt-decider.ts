import { deciderOf, type CommandOf } from '../decider.js';
import { evolveReceiptChain, noReceipts } from './consent-receipt-state.js';
import { issueConsentReceipt } from './issue-consent-receipt.js';

const consentReceiptDecisions = { IssueConsentReceipt: issueConsentReceipt };

/** Every command on a request's receipt chain (`consent-receipts-<requestId>`). */
export type ConsentReceiptCommand = CommandOf<typeof consentReceiptDecisions>;

/** The receipt chain's one decider (contract §14). */
export const consentReceiptDecider = deciderOf(noReceipts, evolveReceiptChain, consentReceiptDecisions);
