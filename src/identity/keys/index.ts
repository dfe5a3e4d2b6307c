/**
 * The service's keys: the Ed25519 signing key and the verifying set (JWT_PRIVATE_KEY, rotation
 * by order), the published JWKS, the 32-byte MASTER_KEY, and dev keys kept in DATA_DIR.
 */
export { loadKeys, type KeyConfig } from './load-keys.js';
export type { Keys, PrivateJwk, PublicJwk, SigningKey } from './types.js';
export { generatePrivateJwk, rotateJwkSet } from './generate.js';
export { generateMasterKey, MASTER_KEY_BYTES } from './master-key.js';
export { serializeJwkSet } from './jwk-set.js';
export { KeyProblem } from './ed25519-jwk.js';
export { DEV_KEYS_FILE } from './dev-keys.js';
