import type { DomainEvent } from './domain-event.js';
import { eventDecoder, streamOf, type StreamRef } from './decoder.js';

/**
 * Streams: `email-<subject>` (the address index), `partner-identity-<subject>` (a partner's
 * identities, contract §13), `user-<identityId>`, `session-<sessionId>`.
 */
export const identityStreams = {
  email: (subject: string): StreamRef<EmailClaimed> => streamOf(emailEvents, `email-${subject}`),
  partnerIdentity: (subject: string): StreamRef<PartnerIdentityLinked> => streamOf(partnerIdentityEvents, `partner-identity-${subject}`),
  user: (identityId: string): StreamRef<UserEvent> => streamOf(userEvents, `user-${identityId}`),
  session: (sessionId: string): StreamRef<SessionEvent> => streamOf(sessionEvents, `session-${sessionId}`),
};

/** The first verify-otp of an address allocates its identity; the stream's no_stream rule makes it unique. */
export type EmailClaimed = DomainEvent<'EmailClaimed', { identityId: string; email: string }>;

/**
 * Contract §13: an identity at a partner's OpenID Connect provider, keyed by (issuer, subject), is
 * linked to the account whose address's one-time code the person gave in the same sign-in.
 */
export type PartnerIdentityLinked = DomainEvent<'PartnerIdentityLinked', { identityId: string; issuer: string; subject: string }>;

export type UserRegistered = DomainEvent<'UserRegistered', { identityId: string; displayName: string | null }>;
/** verify-email/confirm: the address belongs to the account and to the session that proved it. */
export type SecondaryEmailVerified = DomainEvent<'SecondaryEmailVerified', { identityId: string; email: string; sessionId: string }>;
/** revokeAllSessions(IncludingCurrent): one event, so every listed session ends at once. */
export type SessionsRevoked = DomainEvent<'SessionsRevoked', { identityId: string; sessionIds: string[] }>;
/**
 * user.security.eraseAccount, written once the vault key is shredded and the requests closed: it
 * ends every session in the read model and frees the address for a new account. No personal data.
 */
export type AccountErased = DomainEvent<'AccountErased', { identityId: string }>;

export type SessionStarted = DomainEvent<'SessionStarted', { sessionId: string; identityId: string; email: string; expiresAt: string }>;
export type SessionRenewed = DomainEvent<'SessionRenewed', { sessionId: string; expiresAt: string }>;
export type SessionRevoked = DomainEvent<'SessionRevoked', { sessionId: string }>;

export type UserEvent = UserRegistered | SecondaryEmailVerified | SessionsRevoked | AccountErased;
export type SessionEvent = SessionStarted | SessionRenewed | SessionRevoked;

export const emailEvents = eventDecoder<EmailClaimed>('address index', { EmailClaimed: { version: 1 } });

export const partnerIdentityEvents = eventDecoder<PartnerIdentityLinked>('partner identity', { PartnerIdentityLinked: { version: 1 } });

export const userEvents = eventDecoder<UserEvent>('user', {
  UserRegistered: { version: 1 },
  SecondaryEmailVerified: { version: 1 },
  SessionsRevoked: { version: 1 },
  AccountErased: { version: 1 },
});

export const sessionEvents = eventDecoder<SessionEvent>('session', {
  SessionStarted: { version: 1 },
  SessionRenewed: { version: 1 },
  SessionRevoked: { version: 1 },
});
