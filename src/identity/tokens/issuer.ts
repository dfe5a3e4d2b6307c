import { SignJWT } from 'jose';
import type { SigningKey } from '../keys/types.js';

export type UserTokenInput = {
  readonly identityId: string;
  readonly sessionId: string;
  readonly email: string;
  /** The session's end: a token never outlives its session. */
  readonly expiresAt: Date;
};

export type OrgTokenInput = UserTokenInput & {
  readonly organizationId: string;
  readonly permissions: readonly string[];
  /** The id of the membership the token is issued in (R-ACC-04). */
  readonly membership: string;
};

export type TokenIssuerOptions = {
  /** BASE_URL: tokens name the service that made them, and the verifier insists on it. */
  readonly issuer: string;
  readonly signing: SigningKey;
  readonly now?: () => Date;
};

/** Signs access tokens (R-TOK-01, R-TOK-08) with the first key of the set. */
export class TokenIssuer {
  readonly #issuer: string;
  readonly #signing: SigningKey;
  readonly #now: () => Date;

  constructor(options: TokenIssuerOptions) {
    this.#issuer = options.issuer;
    this.#signing = options.signing;
    this.#now = options.now ?? (() => new Date());
  }

  userToken(input: UserTokenInput): Promise<string> {
    return this.#sign('user', input, { email: input.email });
  }

  orgToken(input: OrgTokenInput): Promise<string> {
    return this.#sign('org', input, {
      email: input.email,
      org: input.organizationId,
      perms: [...input.permissions],
      membership: input.membership,
    });
  }

  async #sign(aud: 'user' | 'org', input: UserTokenInput, claims: Record<string, unknown>): Promise<string> {
    const iat = Math.floor(this.#now().getTime() / 1000);
    const exp = Math.floor(input.expiresAt.getTime() / 1000);
    // A token that is dead on arrival means the caller handed over an ended session.
    if (!(exp > iat)) throw new RangeError('cannot issue a token for a session that has already ended');
    return new SignJWT({ ...claims, sid: input.sessionId })
      .setProtectedHeader({ alg: 'EdDSA', kid: this.#signing.kid, typ: 'JWT' })
      .setIssuer(this.#issuer)
      .setAudience(aud)
      .setSubject(input.identityId)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.#signing.privateKey);
  }
}
