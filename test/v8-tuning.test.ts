import { expect } from 'chai';
import { flagsToSet, SERVICE_V8_FLAGS } from '../src/v8-tuning.js';

describe('the V8 flags the service sets at start (docs/decisions.md, "Garbage collection")', () => {
  it('sets every flag of its own when the operator chose none', () => {
    const flags = flagsToSet(SERVICE_V8_FLAGS, ['--import', 'tsx'], undefined);
    expect(flags).to.deep.equal(['--heap-growing-percent=60', '--no-concurrent-marking']);
  });

  it('leaves concurrent marking to an operator who turned it on, on the command line', () => {
    expect(flagsToSet(SERVICE_V8_FLAGS, ['--concurrent-marking'], undefined)).to.deep.equal(['--heap-growing-percent=60']);
  });

  it('leaves heap growth to an operator who set it in NODE_OPTIONS, however spelled', () => {
    const flags = flagsToSet(SERVICE_V8_FLAGS, [], '--max-old-space-size=512  --heap_growing_percent=100');
    expect(flags).to.deep.equal(['--no-concurrent-marking']);
  });

  it('sets nothing when the operator chose both', () => {
    expect(flagsToSet(SERVICE_V8_FLAGS, ['--no-concurrent-marking'], '--heap-growing-percent=30')).to.deep.equal([]);
  });
});
