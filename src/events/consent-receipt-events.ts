import type { DomainEvent } from './domain-event.js';
import { eventDecoder, streamOf, type StreamRef } from './decoder.js';

/** Stream: `consent-receipts-<requestId>`: the request's signed consent receipts, in their chain's order (contract §14). */
export const consentReceiptStream = (requestId: string): StreamRef<ConsentReceiptEvent> =>
  streamOf(consentReceiptEvents, `consent-receipts-${requestId}`);

/**
 * A consent transition's receipt (docs/receipts.md): the compact JWS as signed, its place in the
 * request's chain, and the request event that caused it. No personal data: the JWS holds none.
 */
export type ConsentReceiptIssued = DomainEvent<
  'ConsentReceiptIssued',
  {
    requestId: string;
    receiptId: string;
    seq: number;
    /** base64url SHA-256 of `jws`: the next receipt's `prev`. */
    digest: string;
    causeEventId: string;
    causeType: string;
    /** The consent's state after the cause, a DPV term (docs/receipts.md). */
    status: string;
    issuedAt: string;
    jws: string;
  }
>;

export type ConsentReceiptEvent = ConsentReceiptIssued;

export const consentReceiptEvents = eventDecoder<ConsentReceiptEvent>('consent receipt', { ConsentReceiptIssued: { version: 1 } });
