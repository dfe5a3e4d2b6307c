import { createPrivateKey, createPublicKey } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import type { PrivateJwk } from './types.js';

/** Why a key was refused; the message names the key by position and never echoes key material. */
export class KeyProblem extends Error {
  override readonly name = 'KeyProblem';
}

const D = /^[A-Za-z0-9_-]{43}$/; // 32 bytes, base64url without padding
const KID = /^[\x21-\x7e]{1,128}$/;
// RFC 8410 PKCS#8 prefix for Ed25519: lets node derive the public half from d alone.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Accepts only a private OKP Ed25519 JWK. x is recomputed from d rather than trusted, so a key whose
 * published half does not match its private half can never be loaded.
 */
export async function checkPrivateJwk(input: unknown, where: string): Promise<PrivateJwk> {
  if (!isRecord(input)) throw new KeyProblem(`${where} is not a JSON object`);
  const { kty, crv, d, x, kid, alg, use } = input;
  if (kty !== 'OKP' || crv !== 'Ed25519') {
    const what = typeof kty === 'string' ? `kty ${kty}${typeof crv === 'string' ? ` / crv ${crv}` : ''}` : 'no kty';
    throw new KeyProblem(`${where} has ${what}: only OKP Ed25519 keys are accepted (RSA, EC and symmetric keys are refused)`);
  }
  if (d === undefined) throw new KeyProblem(`${where} is a public key: it needs its private part "d"`);
  if (typeof d !== 'string' || !D.test(d)) throw new KeyProblem(`${where} has a "d" that is not 32 bytes of base64url`);
  if (alg !== undefined && alg !== 'EdDSA' && alg !== 'Ed25519')
    throw new KeyProblem(`${where} has alg ${JSON.stringify(alg)}: only EdDSA is accepted`);
  if (use !== undefined && use !== 'sig') throw new KeyProblem(`${where} has use ${JSON.stringify(use)}: it must be "sig"`);

  const derivedX = publicXOf(d, where);
  if (x !== undefined && x !== derivedX) throw new KeyProblem(`${where} has an "x" that does not belong to its "d"`);
  let finalKid: string;
  if (kid === undefined) {
    // A stable default: the RFC 7638 thumbprint is the same on every instance and every start.
    finalKid = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: derivedX });
  } else if (typeof kid === 'string' && KID.test(kid)) {
    finalKid = kid;
  } else {
    throw new KeyProblem(`${where} has a kid that is not 1 to 128 printable ASCII characters`);
  }
  return { kty: 'OKP', crv: 'Ed25519', kid: finalKid, x: derivedX, d, alg: 'EdDSA', use: 'sig' };
}

function publicXOf(d: string, where: string): string {
  try {
    const der = Buffer.concat([PKCS8_PREFIX, Buffer.from(d, 'base64url')]);
    const publicJwk = createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' });
    if (typeof publicJwk.x !== 'string') throw new Error('no x');
    return publicJwk.x;
  } catch {
    throw new KeyProblem(`${where} has a "d" that is not a valid Ed25519 private key`);
  }
}

/** The Ed25519 key of this 32-byte seed, as a JWK whose kid is its thumbprint (a key derived from another secret). */
export async function privateJwkFromSeed(seed: Buffer): Promise<PrivateJwk> {
  return checkPrivateJwk({ kty: 'OKP', crv: 'Ed25519', d: seed.toString('base64url') }, 'the derived key');
}
