import { expect } from 'chai';
import { graphqlErrorCode } from '../../bench/load.js';

describe('bench load: a GraphQL answer with errors counts as a refusal, though its status is 200', () => {
  it('names the first error’s code; an answer with data only, or data that merely mentions errors, is no refusal', () => {
    const refusal = JSON.stringify({ errors: [{ message: 'busy', extensions: { code: 'RATE_LIMITED' } }, { message: 'x' }], data: null });
    expect(graphqlErrorCode(refusal)).to.equal('RATE_LIMITED');
    expect(graphqlErrorCode(JSON.stringify({ errors: [{ message: 'no code' }] }))).to.equal('');
    expect(graphqlErrorCode(JSON.stringify({ data: { user: { document: { update: { version: 3 } } } } }))).to.equal(null);
    expect(graphqlErrorCode(JSON.stringify({ data: { note: '"errors"' } }))).to.equal(null);
    expect(graphqlErrorCode('not json "errors"')).to.equal(null);
  });
});
