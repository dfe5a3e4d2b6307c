import { exportJWK, generateKeyPair } from 'jose';
import { checkPrivateJwk } from './ed25519-jwk.js';
import { parsePrivateJwkSet } from './jwk-set.js';
import type { PrivateJwk } from './types.js';

/** A fresh Ed25519 key, kid = its thumbprint, passed through the same check as a configured key. */
export async function generatePrivateJwk(): Promise<PrivateJwk> {
  const { privateKey } = await generateKeyPair('EdDSA', { extractable: true });
  return checkPrivateJwk(await exportJWK(privateKey), 'the generated key');
}

/** A new signing key in front; the old keys stay behind it so tokens they signed keep verifying. */
export async function rotateJwkSet(existing: string): Promise<PrivateJwk[]> {
  const old = await parsePrivateJwkSet(existing);
  return [await generatePrivateJwk(), ...old];
}
