import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM from node:crypto. Sealed bytes are iv (12) | tag (16) | ciphertext; the associated
 * data binds a ciphertext to where it belongs (which vault, which record), so a sealed value moved
 * to another place fails to open.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function seal(key: Buffer, plaintext: Buffer, associatedData: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** Throws when the key is wrong, the bytes were altered, or the associated data differs. */
export function open(key: Buffer, sealed: Buffer, associatedData: string): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error('sealed value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}

/** The iv | tag that open() and openStream() read before the ciphertext. */
export const SEALED_HEAD_BYTES = IV_BYTES + TAG_BYTES;

/**
 * Opening fed chunk by chunk (the ciphertext after the head, in order), so a large sealed value is
 * never held whole. What update() answers is not yet authenticated: final() throws unless every
 * byte was genuine, so a reader passes it on only where a failing final() can still void it.
 */
export type StreamOpener = {
  update(chunk: Uint8Array): Buffer;
  final(): Buffer;
};

export function openStream(key: Buffer, head: Uint8Array, associatedData: string): StreamOpener {
  if (head.length !== SEALED_HEAD_BYTES) throw new Error('sealed value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, head.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(head.subarray(IV_BYTES));
  return { update: (chunk) => decipher.update(chunk), final: () => decipher.final() };
}

/** A short public name for a master key, stored beside what it wraps (never the key itself). */
export function masterKeyId(masterKey: Buffer): string {
  return createHash('sha256').update('master-key-id').update(masterKey).digest('hex').slice(0, 16);
}

/** Sealing fed chunk by chunk, so a stream's plaintext is never held whole. */
export type StreamSealer = {
  update(chunk: Uint8Array): void;
  /** The same iv | tag | ciphertext layout as seal(), so open() reads it. */
  final(): Buffer;
};

export function sealStream(key: Buffer, associatedData: string): StreamSealer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  // GCM's tag comes only at the end, and it precedes the ciphertext in the layout: hold the ciphertext.
  const parts: Buffer[] = [];
  return {
    update: (chunk) => void parts.push(cipher.update(chunk)),
    final: () => {
      parts.push(cipher.final());
      return Buffer.concat([iv, cipher.getAuthTag(), ...parts]);
    },
  };
}
