import type { ConsentReceiptIssued } from '../../src/events/consent-receipt-events.js';
import { consentReceiptsProjector } from '../../src/projections/consent-receipts/consent-receipts.js';
import { projectorSpecs, uuid } from '../support/projector-spec.js';

const issued = (seq: number, causeType: string, status: string): ConsentReceiptIssued => ({
  type: 'ConsentReceiptIssued',
  data: {
    requestId: uuid(1),
    receiptId: uuid(10 + seq),
    seq,
    digest: `d${seq}`,
    causeEventId: uuid(20 + seq),
    causeType,
    status,
    issuedAt: `2026-11-29T08:0${seq}:00.000Z`,
    jws: `h.p${seq}.s`,
  },
});

describe('consent receipts read model: each request’s receipts in their chain’s order (contract §14)', () => {
  const given = projectorSpecs();

  it('ConsentReceiptIssued adds the receipt at its place, with its cause, status and JWS', () =>
    given(
      consentReceiptsProjector,
      issued(1, 'RequestAccepted', 'dpv:ConsentGiven'),
      issued(2, 'RequestRevoked', 'dpv:ConsentWithdrawn'),
    ).thenRows('SELECT request_id, seq, receipt_id, issued_at, cause_type, status, jws FROM consent_receipts ORDER BY seq', [
      {
        request_id: uuid(1),
        seq: 1,
        receipt_id: uuid(11),
        issued_at: '2026-11-29T08:01:00.000Z',
        cause_type: 'RequestAccepted',
        status: 'dpv:ConsentGiven',
        jws: 'h.p1.s',
      },
      {
        request_id: uuid(1),
        seq: 2,
        receipt_id: uuid(12),
        issued_at: '2026-11-29T08:02:00.000Z',
        cause_type: 'RequestRevoked',
        status: 'dpv:ConsentWithdrawn',
        jws: 'h.p2.s',
      },
    ]));
});
