import { errors, jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import { readClaims, type Audience, type ClaimsFor } from './claims.js';
import { keyForToken } from './header.js';
import { refused, type RefusalReason, type VerifyResult } from './result.js';

export type TokenVerifierOptions = {
  /** BASE_URL, as the issuer wrote it. */
  readonly issuer: string;
  /** Our keys by kid: the only place a verifying key ever comes from. */
  readonly verifying: ReadonlyMap<string, CryptoKey>;
  readonly now?: () => Date;
  /** Allowed clock skew between instances; small, because it lengthens every token's life. */
  readonly clockToleranceSeconds?: number;
};

const REQUIRED_CLAIMS = ['exp', 'iat', 'sub', 'sid'];
/** Tokens whose signature and claims were checked, kept by their text: every live session's, at most. */
export const VERIFIED_KEPT = 10_000;

/** Why the session check refused a token: neither a session nor a membership ever comes back (R-ACC-04). */
export type EndReason = Extract<RefusalReason, 'session_ended' | 'membership_ended'>;

type Verified = {
  readonly audience: Audience;
  readonly key: CryptoKey;
  readonly exp: number;
  readonly claims: ClaimsFor<Audience>;
  ended?: EndReason;
};

/** Checks access tokens. Never throws: any input answers a result. */
export class TokenVerifier {
  readonly #issuer: string;
  readonly #verifying: ReadonlyMap<string, CryptoKey>;
  readonly #now: () => Date;
  readonly #tolerance: number;
  /**
   * A token's text decides its signature, issuer, audience, iat and nbf checks for good: only its
   * expiry moves with the clock. So a token checked once is answered from here, after its header
   * names the same key again and its exp is checked anew; the EdDSA verify is the dearest part of a
   * token check (docs/decisions.md, "Tokens and keys"). Revocation is the session check's, made every request.
   */
  readonly #verified = new Map<string, Verified>();

  constructor(options: TokenVerifierOptions) {
    this.#issuer = options.issuer;
    this.#verifying = options.verifying;
    this.#now = options.now ?? (() => new Date());
    this.#tolerance = options.clockToleranceSeconds ?? 5;
  }

  async verify<A extends Audience>(token: string, audience: A): Promise<VerifyResult<ClaimsFor<A>>> {
    try {
      return await this.#verify(token, audience);
    } catch {
      return refused('malformed');
    }
  }

  async #verify<A extends Audience>(token: string, audience: A): Promise<VerifyResult<ClaimsFor<A>>> {
    const picked = keyForToken(token, this.#verifying);
    if ('reason' in picked) return refused(picked.reason);
    const now = this.#now();
    const known = this.#verified.get(token);
    if (known && known.audience === audience && known.key === picked.key) {
      if (known.ended) return refused(known.ended);
      if (Math.floor(now.getTime() / 1000) >= known.exp + this.#tolerance) return refused('expired');
      return { ok: true, claims: known.claims as ClaimsFor<A> };
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, picked.key, {
        algorithms: ['EdDSA'],
        typ: 'JWT',
        issuer: this.#issuer,
        audience,
        requiredClaims: REQUIRED_CLAIMS,
        clockTolerance: this.#tolerance,
        currentDate: now,
      }));
    } catch (e) {
      return refused(reasonOf(e));
    }
    // jose accepts an aud array containing ours; we issue a single string, so anything else is foreign.
    if (payload.aud !== audience) return refused('wrong_audience');
    // jose leaves iat unchecked without maxTokenAge; a token from the future was not made by our clock.
    if (typeof payload.iat === 'number' && payload.iat > Math.floor(now.getTime() / 1000) + this.#tolerance)
      return refused('not_yet_valid');
    const claims = readClaims(payload, audience);
    if (!claims) return refused('bad_claims');
    this.#remember(token, { audience, key: picked.key, exp: payload.exp!, claims });
    return { ok: true, claims };
  }

  /**
   * Marks a token the session check refused: it is answered so from here, without that check, so a
   * flood of dead tokens costs no database read (R-LIM-17). A token not kept (any more) is checked anew.
   */
  end(token: string, reason: EndReason): void {
    const known = this.#verified.get(token);
    if (known) known.ended = reason;
  }

  #remember(token: string, verified: Verified): void {
    this.#verified.delete(token);
    this.#verified.set(token, verified);
    // The oldest checked goes first: a token in use is checked again within its short life anyway.
    for (const [oldest] of this.#verified) {
      if (this.#verified.size <= VERIFIED_KEPT) break;
      this.#verified.delete(oldest);
    }
  }
}

function reasonOf(e: unknown): RefusalReason {
  if (e instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (e instanceof errors.JWTExpired) return 'expired';
  if (e instanceof errors.JOSEAlgNotAllowed) return 'unsupported_alg';
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.reason === 'missing') return 'missing_claim';
    if (e.claim === 'iss') return 'wrong_issuer';
    if (e.claim === 'aud') return 'wrong_audience';
    if (e.claim === 'nbf') return 'not_yet_valid';
    return 'bad_claims';
  }
  return 'malformed';
}
