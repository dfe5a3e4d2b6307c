import { randomBytes } from 'node:crypto';
import { KeyProblem } from './ed25519-jwk.js';

export const MASTER_KEY_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** MASTER_KEY is 32 bytes in base64 or base64url; any other length is a mistake, not a weaker key. */
export function parseMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  if (!BASE64.test(trimmed)) throw new KeyProblem('not base64 or base64url');
  const bytes = Buffer.from(trimmed, 'base64');
  if (bytes.length !== MASTER_KEY_BYTES) {
    throw new KeyProblem(`decodes to ${bytes.length} bytes; it must be exactly ${MASTER_KEY_BYTES} (generate one with npm run keys)`);
  }
  return bytes;
}

export const generateMasterKey = (): Buffer => randomBytes(MASTER_KEY_BYTES);
