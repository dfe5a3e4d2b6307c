import type { Refusal } from '../commands/refusal.js';
import { refuse } from '../commands/refusal.js';

/** A normalized login address: trimmed, lowercased, plausibly one mailbox. */
export type Email = string & { readonly __brand: 'Email' };

const MAX_LENGTH = 254;
// ASCII only: control, zero-width, fullwidth and other look-alike characters can never slip in.
// Internationalized domains are accepted in their punycode (xn--) form.
const ADDRESS = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

export function normalizeEmail(raw: string): Email | Refusal {
  // Only spaces and tabs are trimmed: String.trim would also drop a BOM or a line break, and an
  // address arriving with those is refused rather than silently repaired.
  const email = raw.replace(/^[ \t]+|[ \t]+$/g, '').toLowerCase();
  if (email.length === 0 || email.length > MAX_LENGTH || !ADDRESS.test(email)) {
    return refuse('invalid_email', 'email is not a valid address');
  }
  const local = email.slice(0, email.indexOf('@'));
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return refuse('invalid_email', 'email is not a valid address');
  return email as Email;
}
