import { expect } from 'chai';
import { keyState } from '../../../src/organizations/key-warmth.js';

const at = (iso: string) => new Date(iso);
const started = at('2026-11-22T09:00:00.000Z');
const now = at('2026-11-22T10:00:00.000Z');

describe('when the organization key is warm (contract 2; decision in key-warmth.ts)', () => {
  it("warm while the newest sign-in's window lasts, answering its end", () =>
    expect(keyState({ warmedAt: at('2026-11-22T09:30:00.000Z'), warmUntil: at('2026-11-22T21:30:00.000Z') }, now, started)).to.deep.equal({
      state: 'warm',
      warmUntil: '2026-11-22T21:30:00.000Z',
    }));

  it('cold when never warmed or sealed since (no record of warmth)', () => {
    expect(keyState(null, now, started)).to.deep.equal({ state: 'cold' });
    expect(keyState({ warmedAt: null, warmUntil: null }, now, started)).to.deep.equal({ state: 'cold' });
  });

  it('cold once the window has passed', () =>
    expect(keyState({ warmedAt: at('2026-11-21T09:30:00.000Z'), warmUntil: now }, now, started)).to.deep.equal({ state: 'cold' }));

  it('cold after a restart: a sign-in before this process started does not count', () =>
    expect(keyState({ warmedAt: at('2026-11-22T08:59:59.999Z'), warmUntil: at('2026-11-22T20:59:59.999Z') }, now, started)).to.deep.equal({
      state: 'cold',
    }));
});
