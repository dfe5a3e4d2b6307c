import type {
  AccountErased,
  SecondaryEmailVerified,
  SessionRenewed,
  SessionRevoked,
  SessionsRevoked,
  SessionStarted,
} from '../../src/events/identity-events.js';
import { sessionsProjector } from '../../src/projections/sessions/sessions.js';
import { at, projectorSpecs, uuid } from '../support/projector-spec.js';

const sessions = `SELECT session_id, identity_id, created_at, expires_at, revoked_at, verified_emails FROM sessions ORDER BY session_id`;
const ann = uuid(1);

const started = (n: number, expiresAt: string): SessionStarted => ({
  type: 'SessionStarted',
  data: { sessionId: uuid(n), identityId: ann, email: 'ann@example.com', expiresAt },
});
const renewed = (n: number, expiresAt: string): SessionRenewed => ({ type: 'SessionRenewed', data: { sessionId: uuid(n), expiresAt } });
const revoked = (n: number): SessionRevoked => ({ type: 'SessionRevoked', data: { sessionId: uuid(n) } });
const allRevoked = (...ns: number[]): SessionsRevoked => ({ type: 'SessionsRevoked', data: { identityId: ann, sessionIds: ns.map(uuid) } });
const verified = (n: number, email: string): SecondaryEmailVerified => ({
  type: 'SecondaryEmailVerified',
  data: { identityId: ann, email, sessionId: uuid(n) },
});

describe('sessions read model: every login session, checked on each request', () => {
  const given = projectorSpecs();

  it('SessionStarted records the session, its identity, when it began and when it ends', () =>
    given(sessionsProjector, at('2026-06-01T10:00:00.000Z', started(11, '2026-06-04T10:00:00.000Z'))).thenRows(sessions, [
      {
        session_id: uuid(11),
        identity_id: ann,
        created_at: '2026-06-01T10:00:00.000Z',
        expires_at: '2026-06-04T10:00:00.000Z',
        revoked_at: null,
        verified_emails: [],
      },
    ]));

  it("SessionRenewed moves only that session's end; its start stays", () =>
    given(
      sessionsProjector,
      at('2026-06-01T10:00:00.000Z', started(11, '2026-06-04T10:00:00.000Z')),
      at('2026-06-01T11:00:00.000Z', started(12, '2026-06-04T11:00:00.000Z')),
      at('2026-06-03T09:00:00.000Z', renewed(11, '2026-06-06T09:00:00.000Z')),
    ).thenRows('SELECT session_id, created_at, expires_at FROM sessions ORDER BY session_id', [
      { session_id: uuid(11), created_at: '2026-06-01T10:00:00.000Z', expires_at: '2026-06-06T09:00:00.000Z' },
      { session_id: uuid(12), created_at: '2026-06-01T11:00:00.000Z', expires_at: '2026-06-04T11:00:00.000Z' },
    ]));

  it("SessionRevoked ends one session at the event's time; a second revocation keeps the first time", () =>
    given(
      sessionsProjector,
      started(11, '2026-06-04T10:00:00.000Z'),
      started(12, '2026-06-04T10:00:00.000Z'),
      at('2026-06-02T00:00:00.000Z', revoked(11)),
      at('2026-06-02T05:00:00.000Z', revoked(11)),
    ).thenRows('SELECT session_id, revoked_at FROM sessions ORDER BY session_id', [
      { session_id: uuid(11), revoked_at: '2026-06-02T00:00:00.000Z' },
      { session_id: uuid(12), revoked_at: null },
    ]));

  it('SessionsRevoked ends every listed session at once; one revoked earlier keeps its time, an unlisted one lives', () =>
    given(
      sessionsProjector,
      started(11, '2026-06-04T10:00:00.000Z'),
      started(12, '2026-06-04T10:00:00.000Z'),
      started(13, '2026-06-04T10:00:00.000Z'),
      at('2026-06-02T00:00:00.000Z', revoked(12)),
      at('2026-06-02T07:00:00.000Z', allRevoked(11, 12)),
    ).thenRows('SELECT session_id, revoked_at FROM sessions ORDER BY session_id', [
      { session_id: uuid(11), revoked_at: '2026-06-02T07:00:00.000Z' },
      { session_id: uuid(12), revoked_at: '2026-06-02T00:00:00.000Z' },
      { session_id: uuid(13), revoked_at: null },
    ]));

  it('SecondaryEmailVerified attaches the address to the session that proved it, once', () =>
    given(
      sessionsProjector,
      started(11, '2026-06-04T10:00:00.000Z'),
      started(12, '2026-06-04T10:00:00.000Z'),
      verified(11, 'ann@work.example'),
      verified(11, 'ann@home.example'),
      verified(11, 'ann@work.example'),
    ).thenRows('SELECT session_id, verified_emails FROM sessions ORDER BY session_id', [
      { session_id: uuid(11), verified_emails: ['ann@work.example', 'ann@home.example'] },
      { session_id: uuid(12), verified_emails: [] },
    ]));

  it("AccountErased ends every session of that identity and forgets their addresses; another identity's session lives", () => {
    const erased: AccountErased = { type: 'AccountErased', data: { identityId: ann } };
    const bobs: SessionStarted = {
      type: 'SessionStarted',
      data: { sessionId: uuid(21), identityId: uuid(2), email: 'bob@example.com', expiresAt: '2026-06-04T10:00:00.000Z' },
    };
    return given(
      sessionsProjector,
      started(11, '2026-06-04T10:00:00.000Z'),
      started(12, '2026-06-04T10:00:00.000Z'),
      bobs,
      verified(11, 'ann@work.example'),
      at('2026-06-02T00:00:00.000Z', revoked(12)),
      at('2026-06-02T07:00:00.000Z', erased),
    ).thenRows('SELECT session_id, revoked_at, verified_emails FROM sessions ORDER BY session_id', [
      { session_id: uuid(11), revoked_at: '2026-06-02T07:00:00.000Z', verified_emails: [] },
      { session_id: uuid(12), revoked_at: '2026-06-02T00:00:00.000Z', verified_emails: [] },
      { session_id: uuid(21), revoked_at: null, verified_emails: [] },
    ]);
  });
});
