import type { AccountErased, EmailClaimed, SecondaryEmailVerified, UserRegistered } from '../../src/events/identity-events.js';
import { identitiesProjector } from '../../src/projections/identities/identities.js';
import { at, projectorSpecs, uuid } from '../support/projector-spec.js';

const identities = `SELECT identity_id, email, created_at, registered_at, display_name, verified_emails FROM identities ORDER BY email`;

const claimed = (n: number, email: string): EmailClaimed => ({ type: 'EmailClaimed', data: { identityId: uuid(n), email } });
const registered = (n: number, displayName: string | null): UserRegistered => ({
  type: 'UserRegistered',
  data: { identityId: uuid(n), displayName },
});
const verified = (n: number, email: string): SecondaryEmailVerified => ({
  type: 'SecondaryEmailVerified',
  data: { identityId: uuid(n), email, sessionId: uuid(100 + n) },
});

describe('identities read model: one row per login address', () => {
  const given = projectorSpecs();

  it('EmailClaimed allocates the identity at its first verify-otp, not yet registered', () =>
    given(identitiesProjector, at('2026-05-01T08:00:00.123Z', claimed(1, 'ann@example.com'))).thenRows(identities, [
      {
        identity_id: uuid(1),
        email: 'ann@example.com',
        created_at: '2026-05-01T08:00:00.123Z',
        registered_at: null,
        display_name: null,
        verified_emails: [],
      },
    ]));

  it('UserRegistered stamps that identity alone with the time and display name; creation time stays', () =>
    given(
      identitiesProjector,
      at('2026-05-01T08:00:00.000Z', claimed(1, 'ann@example.com')),
      at('2026-05-01T08:00:01.000Z', claimed(2, 'bob@example.com')),
      at('2026-05-01T09:30:00.000Z', registered(1, 'Ann A.')),
    ).thenRows(identities, [
      {
        identity_id: uuid(1),
        email: 'ann@example.com',
        created_at: '2026-05-01T08:00:00.000Z',
        registered_at: '2026-05-01T09:30:00.000Z',
        display_name: 'Ann A.',
        verified_emails: [],
      },
      {
        identity_id: uuid(2),
        email: 'bob@example.com',
        created_at: '2026-05-01T08:00:01.000Z',
        registered_at: null,
        display_name: null,
        verified_emails: [],
      },
    ]));

  it('registering without a display name leaves it empty', () =>
    given(identitiesProjector, claimed(1, 'ann@example.com'), at('2026-05-02T00:00:00.000Z', registered(1, null))).thenRows(
      'SELECT registered_at, display_name FROM identities',
      [{ registered_at: '2026-05-02T00:00:00.000Z', display_name: null }],
    ));

  it('SecondaryEmailVerified lists each address once, in the order first verified', () =>
    given(
      identitiesProjector,
      claimed(1, 'ann@example.com'),
      claimed(2, 'bob@example.com'),
      verified(1, 'ann@work.example'),
      verified(1, 'ann@home.example'),
      verified(1, 'ann@work.example'),
    ).thenRows('SELECT email, verified_emails FROM identities ORDER BY email', [
      { email: 'ann@example.com', verified_emails: ['ann@work.example', 'ann@home.example'] },
      { email: 'bob@example.com', verified_emails: [] },
    ]));

  it('AccountErased drops the identity and its addresses; the address can be claimed again by a new identity', () => {
    const erased: AccountErased = { type: 'AccountErased', data: { identityId: uuid(1) } };
    return given(
      identitiesProjector,
      claimed(1, 'ann@example.com'),
      claimed(2, 'bob@example.com'),
      verified(1, 'ann@work.example'),
      erased,
      claimed(3, 'ann@example.com'),
    ).thenRows('SELECT identity_id, email, verified_emails FROM identities ORDER BY email', [
      { identity_id: uuid(3), email: 'ann@example.com', verified_emails: [] },
      { identity_id: uuid(2), email: 'bob@example.com', verified_emails: [] },
    ]);
  });
});
