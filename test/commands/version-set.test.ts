import { expect } from 'chai';
import fc from 'fast-check';
import { hasVersion, noVersions, withVersion, type VersionSet } from '../../src/commands/version-set.js';

describe("a chain's kept versions, as ranges", () => {
  it('knows exactly the versions added, in any order, as sorted ranges that neither overlap nor touch', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 80 }), (added) => {
        const set = added.reduce<VersionSet>(withVersion, noVersions);
        for (let v = 0; v <= 61; v++) expect(hasVersion(set, v), `version ${v} of ${JSON.stringify(added)}`).to.equal(added.includes(v));
        set.forEach(([first, last], i) => {
          expect(first).to.be.at.most(last);
          if (i > 0) expect(first, JSON.stringify(set)).to.be.above(set[i - 1]![1] + 1);
        });
      }),
    );
  });

  it('joins the ranges a version fills the gap between, and returns the same set for a version it holds', () => {
    const set = [1, 2, 4, 5].reduce<VersionSet>(withVersion, noVersions);
    expect(set).to.deep.equal([
      [1, 2],
      [4, 5],
    ]);
    expect(withVersion(set, 3)).to.deep.equal([[1, 5]]);
    expect(withVersion(set, 4)).to.equal(set);
  });
});
