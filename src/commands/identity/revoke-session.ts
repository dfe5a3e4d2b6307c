import { refuse } from '../refusal.js';
import { sessionDecision } from './session-state.js';

export type RevokeSession = { readonly sessionId: string; readonly identityId: string };

/** user.security.revokeSession: only the caller's own sessions; another's answers not_found. */
export const revokeSession = sessionDecision<RevokeSession>((state, cmd) => {
  if (state.status === 'none' || state.identityId !== cmd.identityId) return refuse('not_found', 'no such session');
  if (state.status === 'revoked') return [];
  return [{ type: 'SessionRevoked', data: { sessionId: cmd.sessionId } }];
});
