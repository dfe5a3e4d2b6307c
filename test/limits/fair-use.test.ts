import { expect } from 'chai';
import { BUCKETS_PER_LIMIT, FairUse } from '../../src/limits/fair-use.js';
import { TestClock } from '../support/recording-mailer.js';

/** R-LIM-12: what the API tests (test/api/fair-use.test.ts) cannot reach: the memory bound and the clock. */
describe('fair use buckets (R-LIM-12)', () => {
  const limits = { token: { perSecond: 1, burst: 1 }, organization: { perSecond: 1, burst: 1 } };

  it('keeps a bounded number of buckets per limit: the least recently used is forgotten, and is full again', () => {
    const fairUse = new FairUse(limits, new TestClock().now);
    for (const session of ['oldest', 'recent']) {
      expect(fairUse.admit(session, null)).to.equal(0);
      expect(fairUse.admit(session, null)).to.equal(1);
    }
    for (let i = 0; i < BUCKETS_PER_LIMIT - 1; i++) fairUse.admit(`session-${i}`, null);
    expect(fairUse.admit('recent', null)).to.equal(1);
    expect(fairUse.admit('oldest', null)).to.equal(0);
  });

  it('a wall clock stepped back refills from the new time on, rather than holding a bucket empty until the clock is back', () => {
    const clock = new TestClock();
    const fairUse = new FairUse(limits, clock.now);
    expect(fairUse.admit('session', 'org')).to.equal(0);
    clock.advance(-3_600_000);
    expect(fairUse.admit('session', 'org')).to.equal(1);
    clock.advance(1000);
    expect(fairUse.admit('session', 'org')).to.equal(0);
  });
});
