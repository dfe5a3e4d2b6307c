/** Content encodings asserted; contract: contentEncoding base64 is checked, not only annotated. */
export const CONTENT_ENCODINGS: ReadonlySet<string> = new Set(['base64']);

// RFC 4648 §4 with its padding; no whitespace, no URL-safe alphabet.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export type ContentProblem = { readonly keyword: 'contentEncoding' | 'contentMediaType'; readonly message: string };

/** application/json and any +json type are parsed; other media types stay annotations. */
export function isJsonMediaType(mediaType: string): boolean {
  const essence = (mediaType.split(';')[0] ?? '').trim().toLowerCase();
  return essence === 'application/json' || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(essence);
}

export function contentProblem(encoding: unknown, mediaType: unknown, value: string): ContentProblem | null {
  let text = value;
  if (encoding === 'base64') {
    if (!BASE64.test(value)) return { keyword: 'contentEncoding', message: 'must be base64-encoded (RFC 4648)' };
    if (typeof mediaType !== 'string' || !isJsonMediaType(mediaType)) return null;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'base64'));
    } catch {
      return { keyword: 'contentMediaType', message: `must be ${mediaType} content (not UTF-8)` };
    }
  }
  if (typeof mediaType === 'string' && isJsonMediaType(mediaType)) {
    try {
      JSON.parse(text);
    } catch {
      return { keyword: 'contentMediaType', message: `must be ${mediaType} content` };
    }
  }
  return null;
}
