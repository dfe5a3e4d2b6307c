import type { Caller, Me } from '../identity/identity-service.js';
import type { TokenIssuer } from '../identity/tokens/index.js';
import type { Permission } from '../events/organization-events.js';

/**
 * Signs member tokens that live exactly as long as the session they came from: exp is the
 * session's expiresAt as it stands now (a renewed session's, not the presented token's), and the
 * session check of authenticate() ends the token with the session.
 */
export function memberTokenSigner(issuer: TokenIssuer, sessions: { liveSessions(caller: Caller): Promise<Me['sessions']> }) {
  return async (
    caller: Caller,
    organizationId: string,
    permissions: readonly Permission[],
    membership: string,
  ): Promise<{ token: string; expiresAt: string } | null> => {
    const session = (await sessions.liveSessions(caller)).find((s) => s.current);
    if (!session) return null;
    const token = await issuer.orgToken({ ...caller, expiresAt: new Date(session.expiresAt), organizationId, permissions, membership });
    return { token, expiresAt: session.expiresAt };
  };
}
