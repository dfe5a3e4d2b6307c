import { refuse } from '../refusal.js';
import { sessionDecision } from './session-state.js';

export const SESSION_LENGTH_MS = 72 * 60 * 60 * 1000;

export type StartSession = { readonly sessionId: string; readonly identityId: string; readonly email: string; readonly now: Date };

/** verify-otp: a session of 72 hours (R-AUTH-13). */
export const startSession = sessionDecision<StartSession>((state, cmd) => {
  if (state.status !== 'none') return refuse('conflict', 'session already exists');
  const expiresAt = new Date(cmd.now.getTime() + SESSION_LENGTH_MS).toISOString();
  return [{ type: 'SessionStarted', data: { sessionId: cmd.sessionId, identityId: cmd.identityId, email: cmd.email, expiresAt } }];
});
