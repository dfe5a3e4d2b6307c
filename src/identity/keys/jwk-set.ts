import { checkPrivateJwk, KeyProblem } from './ed25519-jwk.js';
import type { PrivateJwk } from './types.js';

/**
 * Reads JWT_PRIVATE_KEY: one private JWK or a set {keys: [...]}. Order is meaning: the first key
 * signs, the others only verify, which is how a rotation keeps old tokens alive.
 */
export async function parsePrivateJwkSet(text: string): Promise<PrivateJwk[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new KeyProblem('not JSON (expected a private Ed25519 JWK or a JWK set {"keys": [...]})');
  }
  const isSet = typeof parsed === 'object' && parsed !== null && 'keys' in parsed;
  const entries: unknown = isSet ? (parsed as { keys: unknown }).keys : [parsed];
  if (!Array.isArray(entries) || entries.length === 0) throw new KeyProblem('a JWK set needs a non-empty "keys" array');

  const keys: PrivateJwk[] = [];
  for (const [i, entry] of entries.entries()) {
    const key = await checkPrivateJwk(entry, isSet ? `key ${i + 1} of the set` : 'the key');
    // Two keys under one kid would make the choice of verifying key ambiguous.
    if (keys.some((k) => k.kid === key.kid)) throw new KeyProblem(`key ${i + 1} of the set repeats kid "${key.kid}"`);
    keys.push(key);
  }
  return keys;
}

/** The form `npm run keys` prints and JWT_PRIVATE_KEY takes. */
export const serializeJwkSet = (keys: readonly PrivateJwk[]): string => JSON.stringify({ keys });
