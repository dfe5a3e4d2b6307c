import type { PartnerIdentityLinked } from '../../../src/events/identity-events.js';
import { partnerIdentityDecider } from '../../../src/commands/identity/partner-identity-decider.js';
import { specOf } from '../../support/given.js';

const link = specOf(partnerIdentityDecider, 'LinkPartnerIdentity');
const issuer = 'https://id.acme.example';
const linked = (identityId: string): PartnerIdentityLinked => ({
  type: 'PartnerIdentityLinked',
  data: { identityId, issuer, subject: 'ann.lee' },
});

describe('a partner’s identity is linked to one account (contract §13, R-PART-08)', () => {
  it('the first link, made after the address’s code, ties (issuer, subject) to that account', () =>
    link().when({ identityId: 'i1', issuer, subject: 'ann.lee', erased: null }).then(linked('i1')));

  it('linking it again to the same account changes nothing', () =>
    link(linked('i1')).when({ identityId: 'i1', issuer, subject: 'ann.lee', erased: null }).then());

  it('to another account it is refused while the first stands', () =>
    link(linked('i1'))
      .when({ identityId: 'i2', issuer, subject: 'ann.lee', erased: null })
      .thenRefused('conflict', /another account/));

  it('once that account is erased, it is linked anew', () =>
    link(linked('i1')).when({ identityId: 'i2', issuer, subject: 'ann.lee', erased: 'i1' }).then(linked('i2')));
});
