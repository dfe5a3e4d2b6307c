import { readFileSync } from 'node:fs';
import { consentReceiptEvents } from '../../events/consent-receipt-events.js';
import { projector, writes } from '../projector.js';

const sql = {
  insert: `INSERT INTO consent_receipts (request_id, seq, receipt_id, issued_at, cause_type, status, jws)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
};

/** Contract §14: the receipts of each request, as user.consentReceipts and GET /org/v1/requests/{id}/receipts read them. */
export const consentReceiptsProjector = projector({
  name: 'consent_receipts',
  version: 1,
  schemaSql: readFileSync(new URL('./consent-receipts.sql', import.meta.url), 'utf8'),
  events: consentReceiptEvents,
  on: {
    ConsentReceiptIssued: writes(({ data: d }) => [
      [sql.insert, [d.requestId, d.seq, d.receiptId, d.issuedAt, d.causeType, d.status, d.jws]],
    ]),
  },
});
