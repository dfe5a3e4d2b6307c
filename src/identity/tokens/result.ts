/**
 * Why a token was refused. For logs and tests only: the API answers one 401 unauthenticated for
 * every reason, so a caller learns nothing about which check failed.
 */
export type RefusalReason =
  | 'malformed'
  | 'too_long'
  | 'unsupported_alg'
  | 'forbidden_header'
  | 'bad_header'
  | 'missing_kid'
  | 'unknown_kid'
  | 'bad_signature'
  | 'expired'
  | 'not_yet_valid'
  | 'missing_claim'
  | 'bad_claims'
  | 'wrong_issuer'
  | 'wrong_audience';

export type VerifyResult<C> = { readonly ok: true; readonly claims: C } | { readonly ok: false; readonly reason: RefusalReason };

export const refused = (reason: RefusalReason): { readonly ok: false; readonly reason: RefusalReason } => ({ ok: false, reason });
