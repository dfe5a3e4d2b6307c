import { isIP } from 'node:net';
import { isPublicAddress } from './addresses.js';

/** A webhook's URL is at most this long (R-HOOK-02), as browsers and most servers take. */
export const MAX_URL_LENGTH = 2048;

/** WEBHOOK_ALLOW_PRIVATE: the operator lets webhooks reach private addresses, and plain http (development). */
export type AddressPolicy = { readonly allowPrivate: boolean };

/** A URL's host as an address or a name: IPv6 literals without their brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * R-HOOK-02: what is wrong with a webhook URL, or null. https only (http too when private addresses
 * are allowed, for a receiver on this machine), no credentials (they would sit in the log and the
 * list), and no host that is plainly not public: an IP literal that is not, or localhost. A name is
 * resolved at each delivery and its addresses judged then (R-HOOK-08).
 */
export function webhookUrlProblem(url: URL, policy: AddressPolicy): string | null {
  const schemes = policy.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return `url must be ${policy.allowPrivate ? 'an https or http' : 'an https'} URL`;
  if (url.username !== '' || url.password !== '') return 'url must carry no user name or password';
  if (policy.allowPrivate) return null;
  const host = hostOf(url);
  if (isIP(host) !== 0 ? !isPublicAddress(host) : host === 'localhost' || host.endsWith('.localhost'))
    return 'url must name a public host: private, loopback and link-local addresses are refused';
  return null;
}

/** The URL a member gave, parsed, or what is wrong with it. */
export function parseWebhookUrl(text: string, policy: AddressPolicy): URL | string {
  if (text.length > MAX_URL_LENGTH) return `url must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'url must be an absolute URL';
  }
  return webhookUrlProblem(url, policy) ?? url;
}
