import { claimEmail } from '../../../src/commands/identity/claim-email.js';
import { eraseAccount } from '../../../src/commands/identity/erase-account.js';
import type { AccountErased, EmailClaimed } from '../../../src/events/identity-events.js';
import { specFor } from '../../support/given.js';

const claimed: EmailClaimed = { type: 'EmailClaimed', data: { identityId: 'i1', email: 'a@x.com' } };
const erased: AccountErased = { type: 'AccountErased', data: { identityId: 'i1' } };

describe('eraseAccount (contract 9: erasure)', () => {
  it('records the erasure once, with the identity id only', () =>
    specFor(eraseAccount)({ type: 'UserRegistered', data: { identityId: 'i1', displayName: 'Ann' } })
      .when({ identityId: 'i1' })
      .then(erased));

  it('a retry after the erasure records nothing more', () => specFor(eraseAccount)(erased).when({ identityId: 'i1' }).then());

  it('a login after the erasure claims the address for a new identity', () =>
    specFor(claimEmail)(claimed)
      .when({ email: 'a@x.com', newIdentityId: 'i2', erased: 'i1' })
      .then({ type: 'EmailClaimed', data: { identityId: 'i2', email: 'a@x.com' } }));

  it('an erased identity other than the claiming one changes nothing', () =>
    specFor(claimEmail)(claimed, { type: 'EmailClaimed', data: { identityId: 'i2', email: 'a@x.com' } })
      .when({ email: 'a@x.com', newIdentityId: 'i3', erased: 'i1' })
      .then());
});
