import type { SessionStarted, UserEvent } from '../../../src/events/identity-events.js';
import { specOf } from '../../support/given.js';
import { emailClaimDecider } from '../../../src/commands/identity/email-claim-decider.js';
import { sessionDecider } from '../../../src/commands/identity/session-decider.js';
import { userDecider } from '../../../src/commands/identity/user-decider.js';

const now = new Date('2026-11-22T10:00:00.000Z');
const in72h = '2026-11-25T10:00:00.000Z';
const start = specOf(sessionDecider, 'StartSession');
const renew = specOf(sessionDecider, 'RenewSession');
const revoke = specOf(sessionDecider, 'RevokeSession');
const revokeAll = specOf(userDecider, 'RevokeAllSessions');
const started: SessionStarted = { type: 'SessionStarted', data: { sessionId: 's1', identityId: 'i1', email: 'a@x.com', expiresAt: in72h } };

describe('identity allocation (contract 1: sub is stable per normalized email)', () => {
  const given = specOf(emailClaimDecider, 'ClaimEmail');
  it('the first claim allocates the identity', () =>
    given()
      .when({ email: 'a@x.com', newIdentityId: 'i1', erased: null })
      .then({ type: 'EmailClaimed', data: { identityId: 'i1', email: 'a@x.com' } }));
  it('a later claim keeps the first identity', () =>
    given({ type: 'EmailClaimed', data: { identityId: 'i1', email: 'a@x.com' } })
      .when({ email: 'a@x.com', newIdentityId: 'i2', erased: null })
      .then());
});

describe('sessions (spec 3.6, 8: 72 hours, sliding)', () => {
  it('verify-otp starts a session of 72 hours', () =>
    start().when({ sessionId: 's1', identityId: 'i1', email: 'a@x.com', now }).then(started));

  it('a session id is started once', () =>
    start(started)
      .when({ sessionId: 's1', identityId: 'i2', email: 'b@x.com', now })
      .thenRefused('conflict', /exists/));

  it('renew slides the same session to now + 72 h', () =>
    renew(started)
      .when({ sessionId: 's1', now: new Date('2026-11-24T10:00:00.000Z') })
      .then({ type: 'SessionRenewed', data: { sessionId: 's1', expiresAt: '2026-11-27T10:00:00.000Z' } }));

  it('a revoked or expired session cannot be renewed', () => {
    renew(started, { type: 'SessionRevoked', data: { sessionId: 's1' } })
      .when({ sessionId: 's1', now })
      .thenRefused('unauthenticated');
    renew(started)
      .when({ sessionId: 's1', now: new Date(in72h) })
      .thenRefused('unauthenticated');
  });

  it("revokeSession ends the caller's own session, once", () => {
    revoke(started)
      .when({ sessionId: 's1', identityId: 'i1' })
      .then({ type: 'SessionRevoked', data: { sessionId: 's1' } });
    revoke(started, { type: 'SessionRevoked', data: { sessionId: 's1' } })
      .when({ sessionId: 's1', identityId: 'i1' })
      .then();
  });

  it("another user's session id answers not_found, as an unknown one does", () => {
    revoke(started).when({ sessionId: 's1', identityId: 'i2' }).thenRefused('not_found');
    revoke().when({ sessionId: 's9', identityId: 'i1' }).thenRefused('not_found');
  });

  it('revoke-all names exactly the live sessions it ends', () => {
    revokeAll()
      .when({ identityId: 'i1', liveSessionIds: ['s2', 's3'] })
      .then({ type: 'SessionsRevoked', data: { identityId: 'i1', sessionIds: ['s2', 's3'] } });
    revokeAll().when({ identityId: 'i1', liveSessionIds: [] }).then();
  });
});

describe('user.register (spec 4.1 step 3; contract 1)', () => {
  const given = specOf(userDecider, 'RegisterUser');
  it('registers once', () =>
    given()
      .when({ identityId: 'i1', displayName: null })
      .then({ type: 'UserRegistered', data: { identityId: 'i1', displayName: null } }));
  it('a second register changes nothing (same userId)', () =>
    given({ type: 'UserRegistered', data: { identityId: 'i1', displayName: null } })
      .when({ identityId: 'i1', displayName: 'Ann' })
      .then());
});

describe('verify-email/confirm (spec 4.1; contract 1)', () => {
  const given = specOf(userDecider, 'VerifySecondaryEmail');
  const verified = (email: string, sessionId: string): UserEvent => ({
    type: 'SecondaryEmailVerified',
    data: { identityId: 'i1', email, sessionId },
  });
  it('attaches the confirmed address to the account and the session that proved it', () =>
    given({ type: 'UserRegistered', data: { identityId: 'i1', displayName: null } })
      .when({ identityId: 'i1', email: 'b@x.com', sessionId: 's1' })
      .then(verified('b@x.com', 's1')));
  it('an address confirmed again from another session is recorded for that session too', () =>
    given(verified('b@x.com', 's1')).when({ identityId: 'i1', email: 'b@x.com', sessionId: 's2' }).then(verified('b@x.com', 's2')));
});
