import { claimEmail } from '../../../src/commands/identity/claim-email.js';
import { registerUser } from '../../../src/commands/identity/register-user.js';
import { renewSession } from '../../../src/commands/identity/renew-session.js';
import { revokeAllSessions } from '../../../src/commands/identity/revoke-all-sessions.js';
import { revokeSession } from '../../../src/commands/identity/revoke-session.js';
import { startSession } from '../../../src/commands/identity/start-session.js';
import type { SessionStarted } from '../../../src/events/identity-events.js';
import { specFor } from '../../support/given.js';

const now = new Date('2026-11-22T10:00:00.000Z');
const in72h = '2026-11-25T10:00:00.000Z';
const started: SessionStarted = { type: 'SessionStarted', data: { sessionId: 's1', identityId: 'i1', email: 'a@x.com', expiresAt: in72h } };

describe('identity allocation (contract 1: sub is stable per normalized email)', () => {
  const given = specFor(claimEmail);
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
    specFor(startSession)().when({ sessionId: 's1', identityId: 'i1', email: 'a@x.com', now }).then(started));

  it('renew slides the same session to now + 72 h', () =>
    specFor(renewSession)(started)
      .when({ sessionId: 's1', now: new Date('2026-11-24T10:00:00.000Z') })
      .then({ type: 'SessionRenewed', data: { sessionId: 's1', expiresAt: '2026-11-27T10:00:00.000Z' } }));

  it('a revoked or expired session cannot be renewed', () => {
    specFor(renewSession)(started, { type: 'SessionRevoked', data: { sessionId: 's1' } })
      .when({ sessionId: 's1', now })
      .thenRefused('unauthenticated');
    specFor(renewSession)(started)
      .when({ sessionId: 's1', now: new Date(in72h) })
      .thenRefused('unauthenticated');
  });

  it("revokeSession ends the caller's own session, once", () => {
    specFor(revokeSession)(started)
      .when({ sessionId: 's1', identityId: 'i1' })
      .then({ type: 'SessionRevoked', data: { sessionId: 's1' } });
    specFor(revokeSession)(started, { type: 'SessionRevoked', data: { sessionId: 's1' } })
      .when({ sessionId: 's1', identityId: 'i1' })
      .then();
  });

  it("another user's session id answers not_found, as an unknown one does", () => {
    specFor(revokeSession)(started).when({ sessionId: 's1', identityId: 'i2' }).thenRefused('not_found');
    specFor(revokeSession)().when({ sessionId: 's9', identityId: 'i1' }).thenRefused('not_found');
  });

  it('revoke-all names exactly the live sessions it ends', () => {
    specFor(revokeAllSessions)()
      .when({ identityId: 'i1', liveSessionIds: ['s2', 's3'] })
      .then({ type: 'SessionsRevoked', data: { identityId: 'i1', sessionIds: ['s2', 's3'] } });
    specFor(revokeAllSessions)().when({ identityId: 'i1', liveSessionIds: [] }).then();
  });
});

describe('user.register (spec 4.1 step 3; contract 1)', () => {
  const given = specFor(registerUser);
  it('registers once', () =>
    given()
      .when({ identityId: 'i1', displayName: null })
      .then({ type: 'UserRegistered', data: { identityId: 'i1', displayName: null } }));
  it('a second register changes nothing (same userId)', () =>
    given({ type: 'UserRegistered', data: { identityId: 'i1', displayName: null } })
      .when({ identityId: 'i1', displayName: 'Ann' })
      .then());
});
