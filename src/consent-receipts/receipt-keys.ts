import { hkdfSync } from 'node:crypto';
import { CompactSign, importJWK } from 'jose';
import { privateJwkFromSeed } from '../identity/keys/ed25519-jwk.js';
import type { PublicJwk } from '../identity/keys/index.js';

/** The JWS type of a consent receipt (contract §14), in every receipt's protected header. */
export const RECEIPT_TYPE = 'consent-receipt+jwt';

/** The service's receipt keys (contract §14): the newest generation signs; every generation is published, so old receipts still verify. */
export type ReceiptKeys = {
  /** The signing key's id. */
  readonly kid: string;
  sign(payload: object): Promise<string>;
  readonly jwks: { readonly keys: readonly PublicJwk[] };
};

/**
 * One Ed25519 key per generation 1..`generation` (RECEIPT_KEY_GENERATION), each derived (HKDF) from
 * the service vault's data key: the same on every instance, across restarts and MASTER_KEY
 * rotations, apart from the token keys. Raising the generation rotates the signing key.
 */
export async function receiptKeys(rootKey: Buffer, generation: number): Promise<ReceiptKeys> {
  const keys = [];
  for (let g = 1; g <= generation; g++) {
    const seed = Buffer.from(hkdfSync('sha256', rootKey, Buffer.alloc(0), `consent-receipts-v${g}`, 32));
    keys.push({ ...(await privateJwkFromSeed(seed)), kid: `consent-receipts-${g}`, alg: 'EdDSA' as const, use: 'sig' as const });
  }
  const newest = keys.at(-1)!;
  const privateKey = await importJWK(newest, 'EdDSA');
  return {
    kid: newest.kid,
    sign: (payload) =>
      new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader({ alg: 'EdDSA', typ: RECEIPT_TYPE, kid: newest.kid })
        .sign(privateKey),
    jwks: { keys: keys.map(({ kty, crv, kid, x, alg, use }) => ({ kty, crv, kid, x, alg, use })) },
  };
}
