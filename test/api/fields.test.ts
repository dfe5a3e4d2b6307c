import { expect } from 'chai';
import { textAt, textProblem, timestampAt } from '../../src/api/fields.js';
import { isRefusal } from '../../src/commands/refusal.js';

describe('edge text rules (contract 9)', () => {
  it('a line refuses C0 and C1 controls, DEL, lone surrogates and line separators, and accepts any other character', () => {
    for (const bad of ['\u0000', '\t', '\n', '\r', '\u001f', '\u007f', '\u0085', '\u009f', '\ud800', '\udfff', '\u2028', '\u2029']) {
      expect(textProblem(`a${bad}b`, 'line'), JSON.stringify(bad)).to.be.a('string');
    }
    for (const good of ['Ann Müller', '株式会社', 'שם מלא', '😀', 'a\u200Fb', 'https://acme.example', '\u00a0'])
      expect(textProblem(good, 'line'), good).to.equal(null);
  });

  it('free text also takes tab and newline, nothing else', () => {
    expect(textProblem('one\n\ttwo', 'free')).to.equal(null);
    for (const bad of ['\r', '\u0000', '\u000b', '\u2028']) expect(textProblem(`a${bad}b`, 'free'), JSON.stringify(bad)).to.be.a('string');
  });

  it('a name shown in mail or as a file name refuses bidi controls and links, not domains', () => {
    for (const bad of ['\u202A', '\u202E', '\u2066', '\u2069', '\u200E', '\u200F', '\u061C'])
      expect(textProblem(`a${bad}b`, 'shown'), JSON.stringify(bad)).to.contain('bidirectional');
    for (const link of ['see https://evil.test', 'HTTP://x', 'mailto+x://y']) expect(textProblem(link, 'shown'), link).to.contain('link');
    for (const good of ['Booking.com', 'AT&T', 'Ann: KYC 2026']) expect(textProblem(good, 'shown'), good).to.equal(null);
  });

  it('textAt judges the characters as sent: surrounding space is trimmed, a surrounding line break is refused', () => {
    expect(textAt('  Acme  ', 'name', 10)).to.equal('Acme');
    expect(isRefusal(textAt('Acme\n', 'name', 10))).to.equal(true);
  });

  it('a timestamp has an offset and a day its month has', () => {
    for (const good of ['2026-12-01T10:00:00Z', '2026-12-01T10:00Z', '2026-12-01T10:00:00.123456+05:30', '2028-02-29T00:00:00-01:00'])
      expect(timestampAt(good, 'at'), good).to.equal(good);
    for (const bad of [
      '2026-12-01T10:00:00',
      '2026-12-01',
      '2026-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-12-01T24:00:00Z',
      '+275760-09-13T00:00:00.000Z',
      '2026-12-01 10:00:00Z',
      'Dec 1 2026',
      1,
    ]) {
      expect(isRefusal(timestampAt(bad, 'at')), String(bad)).to.equal(true);
    }
  });
});
