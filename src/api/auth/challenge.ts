/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme is
 * case-insensitive, RFC 9110 §11.1), or null when the request sent none: no header, another scheme,
 * or the scheme alone.
 */
export function bearerToken(authorization: string | undefined): string | null {
  const token = /^bearer(?:[ \t]+(.*))?$/i.exec(authorization ?? '')?.[1]?.trim();
  return token ? token : null;
}

/**
 * R-TOK-09 (contract §10.5): the WWW-Authenticate of a 401, RFC 6750 §3: `Bearer` alone to a
 * request that sent no token, else `invalid_token` with the refusal's reason as its description
 * (cut to the characters a description may hold).
 */
export function bearerChallenge(authorization: string | undefined, description: string): string {
  if (bearerToken(authorization) === null) return 'Bearer';
  return `Bearer error="invalid_token", error_description="${description.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, ' ')}"`;
}
