import { expect } from 'chai';
import { GraphQLError, parse, type DocumentNode } from 'graphql';
import { DocumentCache } from '../../../src/api/graphql/document-cache.js';

describe('GraphQL document cache: an operation sent again is parsed and validated once', () => {
  const counting = <A, R>(fn: (a: A) => R) => {
    const calls = { n: 0 };
    return { calls, fn: (a: A) => (calls.n++, fn(a)) };
  };

  it('answers the same document for the same text, parsing it once', () => {
    const cache = new DocumentCache();
    const p = counting((s: unknown) => parse(s as string));
    const a = cache.parse('{ user { me { userId } } }', p.fn);
    const b = cache.parse('{ user { me { userId } } }', p.fn);
    expect(b).to.equal(a);
    expect(p.calls.n).to.equal(1);
  });

  it('a text that does not parse is refused every time, never remembered', () => {
    const cache = new DocumentCache();
    const p = counting((s: unknown) => parse(s as string));
    for (let i = 0; i < 2; i++) expect(() => cache.parse('{ user {', p.fn)).to.throw(GraphQLError);
    expect(p.calls.n).to.equal(2);
  });

  it('a long text is parsed each time: the cache holds operations, not payloads', () => {
    const cache = new DocumentCache();
    const p = counting((s: unknown) => parse(s as string));
    const long = `{ user { me { userId ${'userId '.repeat(2000)}} } }`;
    cache.parse(long, p.fn);
    cache.parse(long, p.fn);
    expect(p.calls.n).to.equal(2);
  });

  it('remembers a clean validation only: a refused document is judged, and refused, again', () => {
    const cache = new DocumentCache();
    const good = parse('{ a }');
    const bad = parse('{ b }');
    const v = counting((d: DocumentNode) => (d === bad ? [new GraphQLError('no field b')] : []));
    expect(cache.validate(good, v.fn)).to.deep.equal([]);
    expect(cache.validate(good, v.fn)).to.deep.equal([]);
    expect(cache.validate(bad, v.fn)).to.have.length(1);
    expect(cache.validate(bad, v.fn)).to.have.length(1);
    expect(v.calls.n).to.equal(3);
  });
});
