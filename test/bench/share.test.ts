import { expect } from 'chai';
import { withShareOf, type Row } from '../../bench/measure.js';

/** Issue 48 reads each command's share of its floor, and each bare line's, from the rows' ratios. */
describe("bench ratios: a row's share of a reference rate", () => {
  const row: Row = { section: 'commands', name: 'keep', clients: 16, perSecond: 496 };

  it('is the rate over the reference, in whole percent, each share after the ones before', () => {
    const floor = withShareOf(row, 3_107, 'the organization token floor');
    expect(floor.ratio).to.equal('16% of the organization token floor');
    expect(withShareOf(floor, 6_141, 'bare HTTP').ratio).to.equal('16% of the organization token floor; 8% of bare HTTP');
  });

  it('leaves the row as it was when the reference or the rate was not measured', () => {
    expect(withShareOf(row, undefined, 'the bare keep')).to.equal(row);
    expect(withShareOf(row, 0, 'the bare keep')).to.equal(row);
    const unmeasured: Row = { section: 'instances', name: 'one winner per correct' };
    expect(withShareOf(unmeasured, 3_107, 'the organization token floor')).to.equal(unmeasured);
  });
});
