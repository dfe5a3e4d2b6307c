import { importJWK, type CryptoKey } from 'jose';
import { ConfigError, type Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import { loadOrCreateDevKeys } from './dev-keys.js';
import { KeyProblem } from './ed25519-jwk.js';
import { parsePrivateJwkSet } from './jwk-set.js';
import { parseMasterKey } from './master-key.js';
import type { Keys, PrivateJwk, PublicJwk } from './types.js';

export type KeyConfig = Pick<Config, 'production' | 'jwtPrivateKey' | 'masterKey' | 'dataDir'>;

/**
 * The service's keys from JWT_PRIVATE_KEY and MASTER_KEY; outside production whatever is unset
 * comes from <DATA_DIR>/dev-keys.json, made on the first start, and the log says so. Every problem
 * is collected into one ConfigError, like the rest of the configuration.
 */
export async function loadKeys(config: KeyConfig, logger?: Pick<Logger, 'info' | 'warn'>): Promise<Keys> {
  let jwtText = config.jwtPrivateKey;
  let masterText = config.masterKey;
  let jwtSource = 'JWT_PRIVATE_KEY';
  let masterSource = 'MASTER_KEY';
  if (jwtText === null || masterText === null) {
    // Config refuses this already; repeated here so no caller can reach dev keys in production.
    if (config.production) throw new ConfigError(['JWT_PRIVATE_KEY and MASTER_KEY are required in production']);
    const dev = await loadOrCreateDevKeys(config.dataDir);
    const used = { path: dev.path, keys: [jwtText === null && 'JWT_PRIVATE_KEY', masterText === null && 'MASTER_KEY'].filter((k) => k) };
    if (dev.created) logger?.warn(used, 'generated dev keys into DATA_DIR; set JWT_PRIVATE_KEY and MASTER_KEY for anything real');
    else logger?.info(used, 'using the dev keys in DATA_DIR');
    if (jwtText === null) [jwtText, jwtSource] = [dev.jwtPrivateKey, dev.path];
    if (masterText === null) [masterText, masterSource] = [dev.masterKey, dev.path];
  }

  const problems: string[] = [];
  const attempt = async <T>(source: string, read: () => T | Promise<T>): Promise<T | null> => {
    try {
      return await read();
    } catch (e) {
      if (!(e instanceof KeyProblem)) throw e;
      problems.push(`${source}: ${e.message}`);
      return null;
    }
  };
  const jwks = await attempt(jwtSource, () => parsePrivateJwkSet(jwtText));
  const masterKey = await attempt(masterSource, () => parseMasterKey(masterText));
  if (!jwks || !masterKey) throw new ConfigError(problems);

  const verifying = new Map<string, CryptoKey>();
  for (const key of jwks) verifying.set(key.kid, await importPublic(key));
  const [first] = jwks;
  if (!first) throw new ConfigError([`${jwtSource}: holds no key`]);
  return {
    signing: { kid: first.kid, privateKey: await importPrivate(first) },
    verifying,
    jwks: { keys: jwks.map(publicHalf) },
    masterKey,
  };
}

const publicHalf = ({ kty, crv, kid, x, alg, use }: PrivateJwk): PublicJwk => ({ kty, crv, kid, x, alg, use });

// Only the fields that define the key reach the crypto layer; the result is not extractable.
async function importPrivate(key: PrivateJwk): Promise<CryptoKey> {
  return asCryptoKey(await importJWK({ kty: key.kty, crv: key.crv, x: key.x, d: key.d }, 'EdDSA'));
}
async function importPublic(key: PrivateJwk): Promise<CryptoKey> {
  return asCryptoKey(await importJWK({ kty: key.kty, crv: key.crv, x: key.x }, 'EdDSA'));
}
function asCryptoKey(key: CryptoKey | Uint8Array): CryptoKey {
  if (key instanceof Uint8Array) throw new Error('an Ed25519 JWK imported as a symmetric secret');
  return key;
}
