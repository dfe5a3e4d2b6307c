import { isIpv4, isIpv6 } from './ip.js';

// RFC 5322 addr-spec without comments or folding: a dot-atom or quoted-string local part.
const ATEXT = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~]";
const DOT_ATOM = new RegExp(`^${ATEXT}+(?:\\.${ATEXT}+)*$`);
const QUOTED = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"$/;
// RFC 5321 domain: letters, digits and inner hyphens, so "invalid=domain.com" fails.
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export function isEmail(value: string): boolean {
  const at = value.lastIndexOf('@');
  if (at <= 0) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!DOT_ATOM.test(local) && !QUOTED.test(local)) return false;
  if (domain.startsWith('[') && domain.endsWith(']')) {
    const literal = domain.slice(1, -1);
    return literal.startsWith('IPv6:') ? isIpv6(literal.slice(5)) : isIpv4(literal);
  }
  return domain.length <= 253 && domain.split('.').every((label) => LABEL.test(label));
}
