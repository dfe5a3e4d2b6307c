import { refuse } from '../refusal.js';
import { sessionDecision } from './session-state.js';
import { SESSION_LENGTH_MS } from './start-session.js';

export type RenewSession = { readonly sessionId: string; readonly now: Date };

/** renew: the same session, slid to now + 72 h (R-AUTH-14). */
export const renewSession = sessionDecision<RenewSession>((state, cmd) => {
  if (state.status !== 'active' || Date.parse(state.expiresAt) <= cmd.now.getTime()) {
    return refuse('unauthenticated', 'the session has ended');
  }
  const expiresAt = new Date(cmd.now.getTime() + SESSION_LENGTH_MS).toISOString();
  return [{ type: 'SessionRenewed', data: { sessionId: cmd.sessionId, expiresAt } }];
});
