import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { SERVICE_V8_FLAGS, unchosenFlags } from '../src/v8-tuning.js';

describe('the V8 flags the service starts with (docs/decisions.md, "Garbage collection")', () => {
  it("npm start gives node every flag of the service's, on its command line, before the service's code", () => {
    const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
    const args = start.split(/\s+/);
    expect(args[0]).to.equal('node');
    expect(unchosenFlags(SERVICE_V8_FLAGS, args.slice(0, args.indexOf('src/main.ts')), undefined)).to.deep.equal([]);
  });

  it('finds every flag of its own missing when the operator chose none', () => {
    const flags = unchosenFlags(SERVICE_V8_FLAGS, ['--import', 'tsx'], undefined);
    expect(flags).to.deep.equal(['--heap-growing-percent=60', '--no-concurrent-marking']);
  });

  it('counts concurrent marking chosen when the operator turned it on, on the command line', () => {
    expect(unchosenFlags(SERVICE_V8_FLAGS, ['--concurrent-marking'], undefined)).to.deep.equal(['--heap-growing-percent=60']);
  });

  it('counts heap growth chosen when the operator set it in NODE_OPTIONS, however spelled', () => {
    const flags = unchosenFlags(SERVICE_V8_FLAGS, [], '--max-old-space-size=512  --heap_growing_percent=100');
    expect(flags).to.deep.equal(['--no-concurrent-marking']);
  });

  it('finds nothing missing when the operator chose both', () => {
    expect(unchosenFlags(SERVICE_V8_FLAGS, ['--no-concurrent-marking'], '--heap-growing-percent=30')).to.deep.equal([]);
  });
});
