import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may not reach unless WEBHOOK_ALLOW_PRIVATE=1 (R-HOOK-08, docs/security.md):
 * this host, the private networks behind it, link-local (cloud metadata at 169.254.169.254 and
 * fd00:ec2::254), carrier-grade NAT, multicast, and the ranges reserved for documentation or
 * nothing at all. IPv4-mapped IPv6 addresses are judged by their IPv4 address (BlockList does).
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

const NAT64 = new BlockList();
NAT64.addSubnet('64:ff9b::', 96, 'ipv6');

/** Whether `address` (an IP literal) is on the public internet; anything that is no IP address is not. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && NAT64.check(address, 'ipv6')) return isPublicAddress(embeddedIpv4(address));
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The IPv4 address in the last 32 bits of a NAT64 address (RFC 6052, /96). */
function embeddedIpv4(address: string): string {
  // The URL parser writes any IPv6 form (a dotted tail included) as hex groups, `::` for the zeros.
  const [head = '', tail = ''] = new URL(`http://[${address}]`).hostname.slice(1, -1).split('::');
  const [left, right] = [head ? head.split(':') : [], tail ? tail.split(':') : []];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right].map((g) => parseInt(g, 16));
  const [hi, lo] = [groups[6]!, groups[7]!];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}
