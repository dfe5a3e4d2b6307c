import { lookup } from 'node:dns/promises';
import { isLoopbackHost } from '../organizations/app-metadata.js';
import { isPublicAddress } from '../webhooks/addresses.js';

/** fetch's shape, as oidc-provider and openid-client take a fetch of one's own. */
export type OutboundFetch = (input: string | URL | Request, options?: RequestInit) => Promise<Response>;

/**
 * The partner plane's ways out (an app's jwks_uri, an organization's identity provider): https,
 * every address the name resolves to public, no redirect followed (as webhooks, R-HOOK-08). With
 * `loopback` (OAUTH_ALLOW_LOOPBACK_HTTP, development) this machine's loopback too, over http or https.
 * The connection resolves the name again, so a name that changes its answer in between (DNS
 * rebinding) is the residual risk docs/security.md names.
 */
export function outboundFetch(policy: { readonly loopback: boolean }): OutboundFetch {
  return async (input, options) => {
    const target = new URL(input instanceof Request ? input.url : input);
    if (!(policy.loopback && isLoopbackHost(target.hostname))) {
      if (target.protocol !== 'https:') throw new Error(`${target.origin} is not https`);
      const addresses = await lookup(target.hostname.replace(/^\[|\]$/g, ''), { all: true, verbatim: true });
      if (addresses.length === 0 || !addresses.every((a) => isPublicAddress(a.address)))
        throw new Error(`${target.hostname} does not resolve to public addresses only`);
    }
    return fetch(input instanceof Request ? input : target, { ...options, redirect: 'error' });
  };
}
