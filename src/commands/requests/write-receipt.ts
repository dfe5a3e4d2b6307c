import type { ReceiptWritten } from '../../events/request-events.js';
import { requestDecider } from './request-decider.js';

/** R-PROP-03: every candidate read leaves one receipt on the person's side. */
export const writeReceipt = requestDecider<ReceiptWritten['data']>((_s, cmd) => [{ type: 'ReceiptWritten', data: cmd }]);
