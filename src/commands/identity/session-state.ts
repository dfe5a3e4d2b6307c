import type { SessionEvent } from '../../events/identity-events.js';
import type { Refusal } from '../refusal.js';

export type SessionState =
  { readonly status: 'none' } | { readonly status: 'active' | 'revoked'; readonly identityId: string; readonly expiresAt: string };

export const noSession: SessionState = { status: 'none' };

export function evolveSession(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'SessionStarted':
      return { status: 'active', identityId: event.data.identityId, expiresAt: event.data.expiresAt };
    case 'SessionRenewed':
      return state.status === 'none' ? state : { ...state, expiresAt: event.data.expiresAt };
    case 'SessionRevoked':
      return state.status === 'none' ? state : { ...state, status: 'revoked' };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** One command's decision on a session: the session decider (session-decider.ts) switches to it. */
export type SessionDecision<C> = (state: SessionState, command: C) => readonly SessionEvent[] | Refusal;
export const sessionDecision = <C>(decide: SessionDecision<C>): SessionDecision<C> => decide;
