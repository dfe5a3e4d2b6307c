import { expect } from 'chai';
import { parse } from 'graphql';
import { MAX_QUERY_DEPTH, queryLimitErrors } from '../../../src/api/graphql/limits.js';

const check = (q: string) => queryLimitErrors(parse(q)).map((e) => e.message);
/** node { child { ... { id } } }: `levels` fields deep. */
const nested = (levels: number) => `{ node { ${'child { '.repeat(levels - 2)}id ${'} '.repeat(levels - 1)}}`;

describe('GraphQL query limits (contract 5)', () => {
  it(`accepts ${MAX_QUERY_DEPTH} levels and refuses ${MAX_QUERY_DEPTH + 1}`, () => {
    expect(check(nested(MAX_QUERY_DEPTH))).to.deep.equal([]);
    expect(check(nested(MAX_QUERY_DEPTH + 1))[0]).to.match(/nested 16 levels/);
  });

  it('counts depth through fragments too', () => {
    const q = `{ node { ...F } } fragment F on Node { ${Array.from({ length: 15 }, () => 'child {').join(' ')} id ${'}'.repeat(15)} }`;
    expect(check(q)[0]).to.match(/nested/);
  });

  it('refuses more than 200 selected fields, aliases and fragment spreads counted', () => {
    const aliases = (n: number) => Array.from({ length: n }, (_, i) => `f${i}: a`).join(' ');
    expect(check(`{ node { ${aliases(198)} } }`)).to.deep.equal([]);
    expect(check(`{ node { ${aliases(200)} } }`)[0]).to.match(/more than 200 fields/);
    const spread = `{ node { ...F ...F2 } } fragment F on Node { ${aliases(120)} } fragment F2 on Node { ...F }`;
    expect(check(spread)[0]).to.match(/more than 200 fields/);
  });

  it('counts selections of every kind: a chain of inline fragments adds no field but costs', () => {
    const inline = (n: number) => `{ node { ${'... on Node { '.repeat(n)}id ${'} '.repeat(n)}} }`;
    expect(check(inline(900))).to.deep.equal([]);
    expect(check(inline(1000))[0]).to.match(/more than 1000 selections/);
  });

  it('refuses a fragment that spreads itself, also when no operation uses it', () => {
    expect(check(`{ node { id } } fragment A on Node { ...B } fragment B on Node { child { ...A } }`)[0]).to.match(
      /fragment [AB] spreads itself/,
    );
  });
});
