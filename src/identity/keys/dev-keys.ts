import { randomUUID } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_FILE_MODE, privateDir } from '../../data-dir.js';
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
  // Written aside, then linked into place: link fails if the file already exists, so two
  // processes starting together agree on one set of keys and nobody reads a half-written file.
  const temp = `${path}.${randomUUID()}.tmp`;
  await writeFile(temp, body, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  try {
    await link(temp, path);
  } catch (e) {
    if (!isCode(e, 'EEXIST')) throw e;
    const winner = await readDevKeys(path);
    if (!winner) throw e;
    return { ...winner, path, created: false };
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  return { ...keys, path, created: true };
}

async function readDevKeys(path: string): Promise<DevKeys | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if (isCode(e, 'ENOENT')) return null;
    throw e;
  }
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

const isCode = (e: unknown, code: string): boolean => typeof e === 'object' && e !== null && 'code' in e && e.code === code;
