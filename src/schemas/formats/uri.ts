import { isIpv6 } from './ip.js';

// RFC 3986 §3 and §4, component by component; anything outside printable ASCII fails.
const HEX = '[0-9A-Fa-f]';
const PCT = `%${HEX}{2}`;
const SUB_DELIMS = "!$&'()*+,;=";
const UNRESERVED = 'A-Za-z0-9\\-._~';
const PCHAR = `(?:[${UNRESERVED}${SUB_DELIMS}:@]|${PCT})`;
const SEGMENT = new RegExp(`^${PCHAR}*$`);
const QUERY = new RegExp(`^(?:${PCHAR}|[/?])*$`);
const USERINFO = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT})*$`);
const REG_NAME = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT})*$`);
const IP_FUTURE = new RegExp(`^[Vv]${HEX}+\\.[${UNRESERVED}${SUB_DELIMS}:]+$`);
const AUTHORITY = /^(?:([^@]*)@)?(\[[^\]]*\]|[^:@[\]]*)(?::([0-9]*))?$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
const REFERENCE = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

/** RFC 3986 URI: a scheme is required. */
export function isUri(value: string): boolean {
  const parts = REFERENCE.exec(value);
  return parts !== null && parts[1] !== undefined && validParts(parts);
}

/** RFC 3986 URI-reference: a URI or a relative reference. */
export function isUriReference(value: string): boolean {
  const parts = REFERENCE.exec(value);
  return parts !== null && validParts(parts);
}

function validParts(parts: RegExpExecArray): boolean {
  const [, scheme, authority, path = '', query, fragment] = parts;
  if (scheme !== undefined && !SCHEME.test(scheme)) return false;
  if (authority !== undefined) {
    if (!validAuthority(authority)) return false;
    if (path !== '' && !path.startsWith('/')) return false;
  } else if (path.startsWith('//')) {
    return false;
  }
  const segments = path.split('/');
  if (!segments.every((s) => SEGMENT.test(s))) return false;
  // path-noscheme: without a scheme, a colon in the first segment would read as one.
  if (scheme === undefined && authority === undefined && (segments[0] ?? '').includes(':')) return false;
  return (query === undefined || QUERY.test(query)) && (fragment === undefined || QUERY.test(fragment));
}

function validAuthority(authority: string): boolean {
  const m = AUTHORITY.exec(authority);
  if (!m) return false;
  const [, userinfo, host = ''] = m;
  if (userinfo !== undefined && !USERINFO.test(userinfo)) return false;
  if (host.startsWith('[')) {
    const literal = host.slice(1, -1);
    return isIpv6(literal) || IP_FUTURE.test(literal);
  }
  return REG_NAME.test(host);
}
