import type { SessionEvent } from '../../events/identity-events.js';
import type { Decider } from '../decider.js';
import { renewSession, type RenewSession } from './renew-session.js';
import { revokeSession, type RevokeSession } from './revoke-session.js';
import { evolveSession, noSession, type SessionState } from './session-state.js';
import { startSession, type StartSession } from './start-session.js';

/** Every command on a session's stream (`session-<sessionId>`): its start, renewals and revocation. */
export type SessionCommand =
  | { readonly type: 'StartSession'; readonly data: StartSession }
  | { readonly type: 'RenewSession'; readonly data: RenewSession }
  | { readonly type: 'RevokeSession'; readonly data: RevokeSession };

/** The session's one decider: every refusal of a session command is in the decision it switches to. */
export const sessionDecider: Decider<SessionState, SessionCommand, SessionEvent> = {
  initialState: noSession,
  evolve: evolveSession,
  decide: (state, command) => {
    switch (command.type) {
      case 'StartSession':
        return startSession(state, command.data);
      case 'RenewSession':
        return renewSession(state, command.data);
      case 'RevokeSession':
        return revokeSession(state, command.data);
      default: {
        const unknown: never = command;
        return unknown;
      }
    }
  },
};
