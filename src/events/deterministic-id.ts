import { createHash } from 'node:crypto';

/**
 * A name-based UUID (RFC 9562 version 5): the same command id always gives the same event ids,
 * so an append retried after a lost answer is recognised by the store instead of duplicated.
 */
export function deterministicUuid(namespace: string, name: string): string {
  const bytes = createHash('sha1').update(namespace).update('\u0000').update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
