/**
 * Why a token was refused; the API's 401 names it in words (contract §10.5), never which claim or
 * header in particular failed.
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
  | 'wrong_audience'
  /** Remembered by TokenVerifier.end: the session check refused the token, for good. */
  | 'session_ended'
  | 'membership_ended';

export type VerifyResult<C> = { readonly ok: true; readonly claims: C } | { readonly ok: false; readonly reason: RefusalReason };

export const refused = (reason: RefusalReason): { readonly ok: false; readonly reason: RefusalReason } => ({ ok: false, reason });
