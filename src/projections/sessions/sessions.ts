import { readFileSync } from 'node:fs';
import { eitherOf } from '../../events/decoder.js';
import { sessionEvents, userEvents } from '../../events/identity-events.js';
import { projector, writes } from '../projector.js';

export const sessionsProjector = projector({
  name: 'sessions',
  version: 1,
  schemaSql: readFileSync(new URL('./sessions.sql', import.meta.url), 'utf8'),
  events: eitherOf(sessionEvents, userEvents),
  on: {
    SessionStarted: writes((e) => [
      [
        `INSERT INTO sessions (session_id, identity_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
        [e.data.sessionId, e.data.identityId, e.metadata.occurredAt, e.data.expiresAt],
      ],
    ]),
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
});
