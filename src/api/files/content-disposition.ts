/**
 * `attachment` with the stored name (RFC 6266). Clients that only read `filename` get an ASCII
 * stand-in; the exact name travels in `filename*` (RFC 8187, UTF-8) whenever the two differ.
 * `%` is replaced too: some clients percent-decode a plain `filename`.
 */
export function attachment(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/gu, '_');
  if (fallback === fileName) return `attachment; filename="${fileName}"`;
  return `attachment; filename="${fallback}"; filename*=UTF-8''${rfc8187(fileName)}`;
}

/** encodeURIComponent leaves ' ( ) * alone, which RFC 8187's attr-char does not allow. */
function rfc8187(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
