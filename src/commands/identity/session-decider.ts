import { deciderOf, type CommandOf } from '../decider.js';
import { renewSession } from './renew-session.js';
import { revokeSession } from './revoke-session.js';
import { evolveSession, noSession } from './session-state.js';
import { startSession } from './start-session.js';

const sessionDecisions = { StartSession: startSession, RenewSession: renewSession, RevokeSession: revokeSession };

/** Every command on a session's stream (`session-<sessionId>`): its start, renewals and revocation. */
export type SessionCommand = CommandOf<typeof sessionDecisions>;

/** The session's one decider: every refusal of a session command is in the decision its type names. */
export const sessionDecider = deciderOf(noSession, evolveSession, sessionDecisions);
