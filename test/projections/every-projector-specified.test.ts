import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { allProjectors } from '../../src/projections/index.js';

/**
 * Every read model has a given-events / then-rows spec of its own (test/support/projector-spec.ts),
 * and that spec names every event type the projector handles, so a new projector or handler
 * without one fails here.
 */
describe('every projector is specified alone', () => {
  for (const p of allProjectors) {
    it(`${p.name}: test/projections/${p.name.replaceAll('_', '-')}.test.ts gives each event type it handles`, () => {
      const spec = new URL(`./${p.name.replaceAll('_', '-')}.test.ts`, import.meta.url);
      expect(existsSync(spec), `${spec.pathname} exists`).to.equal(true);
      const text = readFileSync(spec, 'utf8');
      expect(text, 'uses the projector spec helper').to.include('projectorSpecs()');
      const unnamed = Object.keys(p.on).filter((type) => !text.includes(`'${type}'`));
      expect(unnamed, 'event types handled but never given').to.deep.equal([]);
    });
  }
});
