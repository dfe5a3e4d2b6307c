/** Who a token speaks to: a person ('user') or a member acting for an organization ('org'). */
export type Audience = 'user' | 'org';

/** What every access token says (R-TOK-01). */
export type UserClaims = {
  readonly iss: string;
  readonly aud: 'user';
  /** The identity id, stable per normalized email. */
  readonly sub: string;
  /** The session id; revocation is checked against it on every request. */
  readonly sid: string;
  readonly email: string;
  readonly iat: number;
  readonly exp: number;
};

/** R-TOK-08: a member token is a user token for aud 'org' that also names the organization. */
export type OrgClaims = Omit<UserClaims, 'aud'> & {
  readonly aud: 'org';
  readonly org: string;
  /** Informative only: permissions are read from the membership on each request (R-ORG-06). */
  readonly perms: readonly string[];
  /**
   * The membership it was issued in (its id): a token of an ended membership never works again
   * (R-ACC-04). Empty in a token issued before memberships had ids: it names none that stands.
   */
  readonly membership: string;
};

export type ClaimsFor<A extends Audience> = A extends 'org' ? OrgClaims : UserClaims;

const text = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const seconds = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/**
 * The verified payload as typed claims, or null when a field is missing or of the wrong type.
 * Signature, iss, aud and times are checked before this; here only the shape.
 */
export function readClaims<A extends Audience>(payload: Readonly<Record<string, unknown>>, audience: A): ClaimsFor<A> | null;
export function readClaims(payload: Readonly<Record<string, unknown>>, audience: Audience): UserClaims | OrgClaims | null {
  const { iss, aud, sub, sid, email, iat, exp } = payload;
  if (!text(iss) || aud !== audience || !text(sub) || !text(sid) || !text(email) || !seconds(iat) || !seconds(exp)) return null;
  const user = { iss, sub, sid, email, iat, exp };
  if (audience === 'user') return { ...user, aud: 'user' };
  const { org, perms, membership = '' } = payload;
  if (!text(org) || !Array.isArray(perms) || !perms.every((p): p is string => typeof p === 'string') || typeof membership !== 'string')
    return null;
  return { ...user, aud: 'org', org, perms: [...perms], membership };
}
