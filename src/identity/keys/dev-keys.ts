import { join } from 'node:path';
import { placeExclusively, privateDir, readIfPresent } from '../../data-dir.js';
import { generatePrivateJwk } from './generate.js';
import { serializeJwkSet } from './jwk-set.js';
import { generateMasterKey } from './master-key.js';

export const DEV_KEYS_FILE = 'dev-keys.json';

/** Settings text as if the operator had set JWT_PRIVATE_KEY and MASTER_KEY. */
export type DevKeys = { readonly jwtPrivateKey: string; readonly masterKey: string };

/**
 * Keys for a laptop: made once and kept in DATA_DIR, so tokens and encrypted data survive a
 * restart. The caller validates the text like configured keys, so a damaged file is refused
 * rather than silently replaced (replacing it would orphan everything encrypted before).
 */
export async function loadOrCreateDevKeys(dataDir: string): Promise<DevKeys & { readonly path: string; readonly created: boolean }> {
  const path = join(dataDir, DEV_KEYS_FILE);
  const existing = await readDevKeys(path);
  if (existing) return { ...existing, path, created: false };

  await privateDir(dataDir);
  const keys: DevKeys = { jwtPrivateKey: serializeJwkSet([await generatePrivateJwk()]), masterKey: generateMasterKey().toString('base64') };
  const note = 'development keys: never use in production';
  const jwtPrivateKey = JSON.parse(keys.jwtPrivateKey) as unknown;
  const body = `${JSON.stringify({ note, jwtPrivateKey, masterKey: keys.masterKey }, null, 2)}\n`;
  // Two processes starting together agree on one set of keys.
  if (await placeExclusively(path, body)) return { ...keys, path, created: true };
  const winner = await readDevKeys(path);
  if (!winner) throw new Error(`${path} appeared without keys`);
  return { ...winner, path, created: false };
}

async function readDevKeys(path: string): Promise<DevKeys | null> {
  const text = await readIfPresent(path);
  if (text === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const file = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { jwtPrivateKey?: unknown; masterKey?: unknown };
  return {
    jwtPrivateKey: file.jwtPrivateKey === undefined ? '' : JSON.stringify(file.jwtPrivateKey),
    masterKey: typeof file.masterKey === 'string' ? file.masterKey : '',
  };
}
