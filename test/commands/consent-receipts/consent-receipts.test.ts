import { expect } from 'chai';
import { consentReceiptDecider } from '../../../src/commands/consent-receipts/consent-receipt-decider.js';
import { receiptIdOf } from '../../../src/consent-receipts/receipt-id.js';
import { receiptPayload, sha256 } from '../../../src/consent-receipts/receipt-payload.js';
import type { ConsentReceiptIssued } from '../../../src/events/consent-receipt-events.js';
import type { Recorded } from '../../../src/events/decoder.js';
import type { RequestEvent } from '../../../src/events/request-events.js';
import { specOf } from '../../support/given.js';

const issue = specOf(consentReceiptDecider, 'IssueConsentReceipt');
const receipt = (seq: number, causeEventId: string): ConsentReceiptIssued['data'] => ({
  requestId: 'r1',
  receiptId: receiptIdOf(causeEventId),
  seq,
  digest: `digest-${seq}`,
  causeEventId,
  causeType: 'RequestAccepted',
  status: 'dpv:ConsentGiven',
  issuedAt: '2026-11-29T08:00:00.000Z',
  jws: `jws-${seq}`,
});
const issued = (seq: number, cause: string): ConsentReceiptIssued => ({ type: 'ConsentReceiptIssued', data: receipt(seq, cause) });

describe('a request’s receipt chain (contract §14, R-CREC-02)', () => {
  it('the first receipt starts the chain; the next one follows the last, naming its digest', () => {
    issue()
      .when({ receipt: receipt(1, 'e1'), prev: null })
      .then(issued(1, 'e1'));
    issue(issued(1, 'e1'))
      .when({ receipt: receipt(2, 'e2'), prev: 'digest-1' })
      .then(issued(2, 'e2'));
  });
  it('a transition receipted already issues nothing', () =>
    issue(issued(1, 'e1'))
      .when({ receipt: receipt(2, 'e1'), prev: 'digest-1' })
      .then());
  it('a receipt signed for another place in the chain is refused, to be signed again', () => {
    issue(issued(1, 'e1'))
      .when({ receipt: receipt(1, 'e2'), prev: null })
      .thenRefused('conflict', /another place/);
    issue(issued(1, 'e1'))
      .when({ receipt: receipt(2, 'e2'), prev: 'digest-0' })
      .thenRefused('conflict', /another place/);
  });
});

describe('a receipt’s payload (docs/receipts.md, R-CREC-01)', () => {
  const at = (i: number) => `2026-11-29T08:0${i}:00.000Z`;
  const recorded = (i: number, event: RequestEvent): Recorded<RequestEvent> =>
    ({ ...event, revision: i, metadata: { eventId: `e${i}`, occurredAt: at(i) } }) as unknown as Recorded<RequestEvent>;
  const sent: RequestEvent = {
    type: 'RequestSent',
    data: {
      requestId: 'r1',
      organizationId: 'o1',
      manifestId: 'm1',
      manifestVersion: 2,
      recipientEmail: 'ann@example.com',
      invitationExpiresAt: '2026-12-06T08:00:00.000Z',
      initiatedBy: 'recipient',
      initiatingClientId: 'app-1',
    },
  };
  const place = {
    issuer: 'https://share.example.com',
    receiptId: 'x',
    seq: 3,
    prev: 'p',
    organizationName: 'Acme Bank',
    manifest: {
      purpose: 'To open your account',
      slots: [
        { slotId: 's1', label: 'Name' },
        { slotId: 's2', label: 'Address' },
      ],
    },
  } as Parameters<typeof receiptPayload>[1];

  it('the consent after its cause: each slot granted (records by digest), withdrawn or asked; the retention from acceptance; the app', () => {
    const events = [
      recorded(0, sent),
      recorded(1, {
        type: 'RequestAccepted',
        data: { requestId: 'r1', retention: 'P90D', retentionMs: 90 * 86_400_000, acceptedAt: at(1) },
      }),
      recorded(2, { type: 'SlotGranted', data: { requestId: 'r1', slotId: 's1', records: [{ resourceId: 'doc-1', entityId: null }] } }),
      recorded(3, { type: 'SlotGranted', data: { requestId: 'r1', slotId: 's2', records: [{ resourceId: 'doc-2', entityId: null }] } }),
      recorded(4, { type: 'SlotWithdrawn', data: { requestId: 'r1', slotId: 's2' } }),
    ];
    expect(receiptPayload(events, place)).to.deep.equal({
      iss: 'https://share.example.com',
      jti: 'x',
      iat: Date.parse(at(4)) / 1000,
      request: 'r1',
      seq: 3,
      prev: 'p',
      event: { id: 'e4', type: 'SlotWithdrawn', at: at(4) },
      status: 'dpv:ConsentGiven',
      controller: { id: 'o1', name: 'Acme Bank' },
      purpose: 'To open your account',
      retention: 'P90D',
      manifest: { id: 'm1', version: 2 },
      initiatedBy: 'recipient',
      app: 'app-1',
      slots: [
        { id: 's1', label: 'Name', status: 'dpv:ConsentGiven', records: [sha256('doc-1')] },
        { id: 's2', label: 'Address', status: 'dpv:ConsentWithdrawn', records: [] },
      ],
    });
  });

  it('a refusal before any acceptance has no retention and asks every slot; the recipient’s address is in no field', () => {
    const payload = receiptPayload([recorded(0, sent), recorded(1, { type: 'RequestRejected', data: { requestId: 'r1' } })], place);
    expect(payload).to.deep.include({ status: 'dpv:ConsentRefused', retention: null });
    expect(payload.slots.map((s) => s.status)).to.deep.equal(['dpv:ConsentRequested', 'dpv:ConsentRequested']);
    expect(JSON.stringify(payload)).not.to.include('ann@example.com');
  });

  it('a receipt id derives from its cause: the same event, the same id; another, another', () => {
    expect(receiptIdOf('e1'))
      .to.equal(receiptIdOf('e1'))
      .and.to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(receiptIdOf('e1')).not.to.equal(receiptIdOf('e2'));
  });
});
