import { refuse, refuseTransport, type Refusal, type TransportRefusal } from '../commands/refusal.js';
import type { StreamSealer } from '../vaults/envelope-crypto.js';

/** An upload as it arrives: the declared length (when the client sent one) and the bytes. */
export type UploadBody = {
  readonly declaredBytes: number | null;
  readonly chunks: AsyncIterable<Uint8Array>;
};

export type SealedUpload = { readonly sealed: Buffer; readonly size: number };

export const tooLarge = (maxBytes: number): TransportRefusal =>
  refuseTransport('payload_too_large', `a file may have at most ${maxBytes} bytes`);

/**
 * Seals the bytes as they arrive and stops reading at the first byte over `maxBytes`, so no
 * more than the limit is ever held (and that only as ciphertext).
 */
export async function sealUpload(
  body: UploadBody,
  sealer: StreamSealer,
  maxBytes: number,
): Promise<SealedUpload | Refusal | TransportRefusal> {
  if (body.declaredBytes !== null && body.declaredBytes > maxBytes) return tooLarge(maxBytes);
  let size = 0;
  try {
    for await (const chunk of body.chunks) {
      size += chunk.byteLength;
      if (size > maxBytes) return tooLarge(maxBytes);
      sealer.update(chunk);
    }
  } catch {
    // Only reading the body can fail here: the client went away mid-upload.
    return refuse('invalid_request', 'the upload was cut off');
  }
  return { sealed: sealer.final(), size };
}
