import type { JsonObject } from '../envelope.js';

/**
 * AppRegistered version 2 → 3. Version 2 was written before an app could carry its organization's
 * identity provider (contract §13, partner-managed users): it reads as an app without one.
 */
export function appWithoutIdentityProvider(data: JsonObject): JsonObject {
  return { ...data, identityProvider: null };
}
