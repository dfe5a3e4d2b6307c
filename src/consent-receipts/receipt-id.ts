import { createHash } from 'node:crypto';

/**
 * A receipt's id, derived from the id of the event that caused it: a UUID (RFC 9562 version 8, its
 * bits from SHA-256), so a transition always has the same receipt id, however often it is reacted to.
 */
export function receiptIdOf(causeEventId: string): string {
  const bytes = createHash('sha256').update(`consent-receipt:${causeEventId}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
