import type { AccountErased, EmailClaimed } from '../../../src/events/identity-events.js';
import { specOf } from '../../support/given.js';
import { emailClaimDecider } from '../../../src/commands/identity/email-claim-decider.js';
import { userDecider } from '../../../src/commands/identity/user-decider.js';

const claimed: EmailClaimed = { type: 'EmailClaimed', data: { identityId: 'i1', email: 'a@x.com' } };
const erase = specOf(userDecider, 'EraseAccount');
const claim = specOf(emailClaimDecider, 'ClaimEmail');
const erased: AccountErased = { type: 'AccountErased', data: { identityId: 'i1' } };

describe('eraseAccount (contract 9: erasure)', () => {
  it('records the erasure once, with the identity id only', () =>
    erase({ type: 'UserRegistered', data: { identityId: 'i1', displayName: 'Ann' } })
      .when({ identityId: 'i1' })
      .then(erased));

  it('a retry after the erasure records nothing more', () => erase(erased).when({ identityId: 'i1' }).then());

  it('a login after the erasure claims the address for a new identity', () =>
    claim(claimed)
      .when({ email: 'a@x.com', newIdentityId: 'i2', erased: 'i1' })
      .then({ type: 'EmailClaimed', data: { identityId: 'i2', email: 'a@x.com' } }));

  it('an erased identity other than the claiming one changes nothing', () =>
    claim(claimed, { type: 'EmailClaimed', data: { identityId: 'i2', email: 'a@x.com' } })
      .when({ email: 'a@x.com', newIdentityId: 'i3', erased: 'i1' })
      .then());
});
