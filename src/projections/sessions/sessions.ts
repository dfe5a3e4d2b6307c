import { readFileSync } from 'node:fs';
import { eitherOf, type Recorded } from '../../events/decoder.js';
import type { UnpositionedEvent } from '../../events/envelope.js';
import { sessionEvents, userEvents, type SessionStarted } from '../../events/identity-events.js';
import { projector, writes } from '../projector.js';
import { insertInto } from '../set-based.js';

const started = insertInto('sessions', ['session_id', 'identity_id', 'created_at', 'expires_at']);
const startedRow = (e: Recorded<SessionStarted, UnpositionedEvent>) => ({
  session_id: e.data.sessionId,
  identity_id: e.data.identityId,
  created_at: e.metadata.occurredAt,
  expires_at: e.data.expiresAt,
});

export const sessionsProjector = projector({
  name: 'sessions',
  version: 1,
  schemaSql: readFileSync(new URL('./sessions.sql', import.meta.url), 'utf8'),
  events: eitherOf(sessionEvents, userEvents),
  on: {
    SessionStarted: writes((e) => [started.one(startedRow(e))]),
    SessionRenewed: writes((e) => [[`UPDATE sessions SET expires_at = $2 WHERE session_id = $1`, [e.data.sessionId, e.data.expiresAt]]]),
    SessionRevoked: writes((e) => [
      [`UPDATE sessions SET revoked_at = $2 WHERE session_id = $1 AND revoked_at IS NULL`, [e.data.sessionId, e.metadata.occurredAt]],
    ]),
    SessionsRevoked: writes((e) => [
      [
        `UPDATE sessions SET revoked_at = $2 WHERE session_id = ANY($1::uuid[]) AND revoked_at IS NULL`,
        [e.data.sessionIds, e.metadata.occurredAt],
      ],
    ]),
    SecondaryEmailVerified: writes((e) => [
      [
        `UPDATE sessions SET verified_emails = verified_emails || to_jsonb($2::text) WHERE session_id = $1 AND NOT verified_emails ? $2`,
        [e.data.sessionId, e.data.email],
      ],
    ]),
    AccountErased: writes((e) => [
      [
        `UPDATE sessions SET revoked_at = COALESCE(revoked_at, $2), verified_emails = '[]' WHERE identity_id = $1`,
        [e.data.identityId, e.metadata.occurredAt],
      ],
    ]),
  },
  setBased: {
    types: ['SessionStarted'],
    statements: (run) => started.many(run.flatMap((e) => (e.type === 'SessionStarted' ? [startedRow(e)] : []))),
  },
});
