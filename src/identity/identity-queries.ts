/** The FROM and WHERE of the per-request session check, with `join` between them. */
const liveSessionOf = (join: string): string =>
  `FROM rm.sessions s JOIN rm.identities i ON i.identity_id = s.identity_id ${join}
   WHERE s.session_id = $1 AND s.identity_id = $2 AND s.revoked_at IS NULL AND s.expires_at > $3`;

/** Read-model queries of the identity plane (tables of the identities and sessions projectors). */
export const identitySql = {
  identity: `SELECT identity_id::text AS identity_id, email, registered_at, verified_emails FROM rm.identities WHERE identity_id = $1`,
  /**
   * The per-request check: a session that exists, is not revoked and has not ended, of an identity
   * that still exists (an erased one has no row, even for a session a racing login started).
   */
  liveSession: `SELECT i.registered_at IS NOT NULL AS registered ${liveSessionOf('')}`,
  /**
   * The same check for a member token, with the address's membership of the token's organization
   * if it is still the one the token was issued in (null columns when not), in one statement:
   * every member request needs both.
   */
  liveMemberSession: `SELECT i.registered_at IS NOT NULL AS registered, m.permissions
                      ${liveSessionOf(
                        'LEFT JOIN rm.organization_members m ON m.organization_id = $4 AND m.email = $5 AND m.membership_id = $6',
                      )}`,
  sessionsOf: `SELECT session_id::text AS session_id, created_at, expires_at, revoked_at, verified_emails
               FROM rm.sessions WHERE identity_id = $1 ORDER BY created_at DESC, session_id`,
  liveSessionIdsOf: `SELECT session_id::text AS session_id FROM rm.sessions
                     WHERE identity_id = $1 AND revoked_at IS NULL AND expires_at > $2 ORDER BY session_id`,
};
