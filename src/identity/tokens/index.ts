/**
 * Access tokens (R-TOK-01 to R-TOK-08): EdDSA JWTs signed with the first key of the set, and a
 * verifier that takes keys only from our own set and answers a result, never an exception.
 */
export { TokenIssuer, type OrgTokenInput, type TokenIssuerOptions, type UserTokenInput } from './issuer.js';
export { TokenVerifier, type EndReason, type TokenVerifierOptions } from './verifier.js';
export type { Audience, ClaimsFor, OrgClaims, UserClaims } from './claims.js';
export type { RefusalReason, VerifyResult } from './result.js';
export { MAX_TOKEN_LENGTH } from './header.js';
