import type { RequestHandler } from 'express';
import { isIPv4, isIPv6 } from 'node:net';
import type { Logger } from '../logger.js';

/** The key a caller's network address is counted under (from clientAddress only). */
export type ClientAddress = string & { readonly __brand: 'ClientAddress' };

/**
 * An IPv4 address as it is (an IPv4-mapped IPv6 address as its IPv4 form), an IPv6 address as its
 * /64 network: one subscriber usually holds a whole /64, so stepping through it gains nothing.
 * `ip` is express's req.ip, which TRUST_PROXY decides (the socket's peer when it is off).
 */
export function clientAddress(ip: string | undefined): ClientAddress {
  if (!ip) return 'unknown' as ClientAddress;
  const mapped = /^::ffff:([0-9.]+)$/i.exec(ip)?.[1];
  if (mapped && isIPv4(mapped)) return mapped as ClientAddress;
  const bare = ip.split('%')[0]!;
  if (!isIPv6(bare)) return ip as ClientAddress;
  return `${firstFourGroups(bare).join(':')}::/64` as ClientAddress;
}

/**
 * R-LIM-15: one warning (an app per process) when a request carries X-Forwarded-For while TRUST_PROXY
 * is off. Behind a proxy every client then counts as the proxy's address, so the per-client limits
 * of one client bind everyone: a few wrong codes an hour from anyone stop every login.
 */
export function forwardedForWarning(logger: Pick<Logger, 'warn'>): RequestHandler {
  let warned = false;
  return (req, _res, next) => {
    if (!warned && req.get('x-forwarded-for') !== undefined && !req.app.get('trust proxy')) {
      warned = true;
      logger.warn(
        'requests carry X-Forwarded-For but TRUST_PROXY is off: if a proxy is in front, every client counts as its address ' +
          'for the login limits; set TRUST_PROXY to the proxies (README, Configuration)',
      );
    }
    next();
  };
}

function firstFourGroups(ipv6: string): string[] {
  const [head, tail] = ipv6.split('::') as [string, string | undefined];
  const groupsOf = (part: string | undefined) => (part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : []);
  const front = groupsOf(head);
  const back = groupsOf(tail);
  const all = tail === undefined ? front : [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return all.slice(0, 4).map((g) => parseInt(g, 16).toString(16));
}
