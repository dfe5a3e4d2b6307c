import type { DomainEvent } from '../commands/decider.js';

/** Streams: `email-<subject>` (the address index), `user-<identityId>`, `session-<sessionId>`. */
export const identityStreams = {
  email: (subject: string) => `email-${subject}`,
  user: (identityId: string) => `user-${identityId}`,
  session: (sessionId: string) => `session-${sessionId}`,
};

/** The first verify-otp of an address allocates its identity; the stream's no_stream rule makes it unique. */
export type EmailClaimed = DomainEvent<'EmailClaimed', { identityId: string; email: string }>;

export type UserRegistered = DomainEvent<'UserRegistered', { identityId: string; displayName: string | null }>;
/** verify-email/confirm: the address belongs to the account and to the session that proved it. */
export type SecondaryEmailVerified = DomainEvent<'SecondaryEmailVerified', { identityId: string; email: string; sessionId: string }>;
/** revokeAllSessions(IncludingCurrent): one event, so every listed session ends at once. */
export type SessionsRevoked = DomainEvent<'SessionsRevoked', { identityId: string; sessionIds: string[] }>;

export type SessionStarted = DomainEvent<'SessionStarted', { sessionId: string; identityId: string; email: string; expiresAt: string }>;
export type SessionRenewed = DomainEvent<'SessionRenewed', { sessionId: string; expiresAt: string }>;
export type SessionRevoked = DomainEvent<'SessionRevoked', { sessionId: string }>;

export type UserEvent = UserRegistered | SecondaryEmailVerified | SessionsRevoked;
export type SessionEvent = SessionStarted | SessionRenewed | SessionRevoked;
