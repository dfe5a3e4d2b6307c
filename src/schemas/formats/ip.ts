const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
const GROUP = /^[0-9A-Fa-f]{1,4}$/;

/** Dotted quad without leading zeros (RFC 3986 IPv4address). */
export function isIpv4(value: string): boolean {
  return IPV4.test(value);
}

/** RFC 4291 §2.2 text forms, with an optional trailing dotted quad; no zone id. */
export function isIpv6(value: string): boolean {
  const halves = value.split('::');
  if (halves.length > 2) return false;
  const groups = (text: string): string[] | null => (text === '' ? [] : text.split(':'));
  const head = groups(halves[0] as string);
  const tail = halves.length === 2 ? groups(halves[1] as string) : [];
  if (head === null || tail === null) return false;
  // Only the very last group may be a dotted quad, and it counts as two groups.
  const trailing = halves.length === 2 ? tail : head;
  const last = trailing[trailing.length - 1];
  let width = head.length + tail.length;
  if (last !== undefined && last.includes('.')) {
    if (!isIpv4(last)) return false;
    trailing.pop();
    width += 1;
  }
  if (![...head, ...tail].every((g) => GROUP.test(g))) return false;
  return halves.length === 2 ? width <= 7 : width === 8;
}
