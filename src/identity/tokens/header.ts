import { decodeProtectedHeader, type CryptoKey } from 'jose';
import type { RefusalReason } from './result.js';

/** Tokens we issue are a few hundred bytes; the bound keeps hostile input from costing parse time. */
export const MAX_TOKEN_LENGTH = 8 * 1024;

// Three non-empty base64url parts: rules out unsigned (`h.p.`), JWE (five parts) and stray whitespace.
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
// Exactly what we sign with. Everything else is refused, above all jwk, jku, x5u, x5c (a token
// must never bring its own key) and crit (extensions we would have to understand).
const ALLOWED_HEADER = new Set(['alg', 'kid', 'typ']);

/**
 * Picks the verifying key from our own map by kid, before any cryptography runs. The header is
 * read with jose's own decoder, so the header checked here is the header jose verifies.
 */
export function keyForToken(token: unknown, verifying: ReadonlyMap<string, CryptoKey>): { key: CryptoKey } | { reason: RefusalReason } {
  if (typeof token !== 'string') return { reason: 'malformed' };
  if (token.length > MAX_TOKEN_LENGTH) return { reason: 'too_long' };
  if (!COMPACT_JWS.test(token)) return { reason: 'malformed' };
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return { reason: 'malformed' };
  }
  if (header.alg !== 'EdDSA') return { reason: 'unsupported_alg' };
  if (Object.keys(header).some((name) => !ALLOWED_HEADER.has(name))) return { reason: 'forbidden_header' };
  if (header.typ !== 'JWT') return { reason: 'bad_header' };
  if (typeof header.kid !== 'string') return { reason: 'missing_kid' };
  const key = verifying.get(header.kid);
  return key ? { key } : { reason: 'unknown_kid' };
}
