import { expect } from 'chai';
import { normalizeEmail } from '../../src/identity/email.js';
import { isRefusal } from '../../src/commands/refusal.js';

describe('email normalization (contract 1)', () => {
  it('trims and lowercases: Alice@X.com and alice@x.com are one address', () => {
    expect(normalizeEmail('  Alice@X.com ')).to.equal('alice@x.com');
    expect(normalizeEmail('alice@x.com')).to.equal('alice@x.com');
  });

  it('accepts ordinary addresses, plus-tags and punycode domains', () => {
    for (const ok of ['a.b+tag@sub.example.co.uk', "o'brien@example.ie", 'x@xn--bcher-kva.example']) {
      expect(isRefusal(normalizeEmail(ok)), ok).to.equal(false);
    }
  });

  it('refuses what is not one plausible address, with invalid_email', () => {
    const bad = [
      '',
      'plain',
      '@x.com',
      'a@',
      'a@x',
      'a b@x.com',
      'a@x.com, b@y.com',
      'a@@x.com',
      '.a@x.com',
      'a..b@x.com',
      'a@x.com\u0000',
      'a\u200b@x.com',
      'a@x\u200d.com',
      '\ufeffa@x.com',
      'ａ@x.com',
      'a@ｘ.com',
      'a@x.com\n',
      'a\r\n@x.com',
      `${'a'.repeat(65)}@x.com`,
      `a@${'b'.repeat(250)}.com`,
    ];
    for (const raw of bad) {
      const r = normalizeEmail(raw);
      expect(isRefusal(r) && r.code, JSON.stringify(raw)).to.equal('invalid_email');
    }
  });
});
