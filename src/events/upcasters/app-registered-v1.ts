import type { JsonObject } from '../envelope.js';

/**
 * AppRegistered version 1 → 2. Version 1 was written before apps were OAuth clients (contract
 * §13): it reads as an app without redirect URIs or keys, which is what it was, an app for
 * user.request.open alone.
 */
export function appWithoutClientMetadata(data: JsonObject): JsonObject {
  return { ...data, redirectUris: [], jwks: null, jwksUri: null };
}
