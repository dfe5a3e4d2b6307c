import { expect } from 'chai';
import { ALPHA_2, ALPHA_3 } from '../../src/schemas/iso-3166.js';
import { expectDataInvalid, expectRefused, expectValid } from './support.js';

// Spec §4.2: formats are asserted, not merely annotations.
const FORMATS: Record<string, { valid: string[]; invalid: string[] }> = {
  country: { valid: ['CH', 'DEU', 'FR', 'USA'], invalid: ['ch', 'XX', 'ZZZ', 'XK', 'C', 'SWIT', 'D E'] },
  currency: { valid: ['CHF', 'EUR', 'XAU'], invalid: ['chf', 'EU', 'EURO', 'E1R', 'ÉUR'] },
  email: {
    valid: ['anna.muster@example.ch', '"anna muster"@example.ch', 'anna@[192.0.2.1]', 'anna@[IPv6:2001:db8::1]', 'a+tag@sub.example.org'],
    invalid: ['anna', '.anna@example.ch', 'an..na@example.ch', 'anna@exa_mple.ch', 'anna@', '@example.ch', 'a b@example.ch'],
  },
  date: { valid: ['2024-02-29', '1999-12-31'], invalid: ['2023-02-29', '2024-13-01', '2024-1-01', '01.02.2024', '2024-02-29T00:00:00Z'] },
  'date-time': {
    valid: ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59.123+01:00', '1998-12-31T23:59:60Z', '1998-12-31t15:59:60-08:00'],
    invalid: ['2024-02-29 23:59:59Z', '2024-02-29T23:59:59', '2024-02-29T24:00:00Z', '2024-02-29T23:59:59+01', '1998-12-31T23:58:60Z'],
  },
  uri: {
    valid: ['https://example.ch/a?b=c#d', 'urn:isbn:0451450523', 'mailto:anna@example.ch', 'http://[2001:db8::1]:8080/'],
    invalid: ['/relative/path', 'example.ch', 'https://exa mple.ch', 'http://example.ch:port/', 'https://example.ch/%zz'],
  },
};

describe('formats (spec 4.2 table)', () => {
  for (const [format, cases] of Object.entries(FORMATS)) {
    it(`${format}: asserts ${cases.valid.length} valid and ${cases.invalid.length} invalid values`, () => {
      for (const value of cases.valid) expectValid({ type: 'string', format }, value);
      for (const value of cases.invalid) expectDataInvalid({ type: 'string', format }, value, 'format');
    });
  }

  it('country takes the full ISO 3166-1 code list, alpha-2 and alpha-3', () => {
    expect(ALPHA_2.size).to.equal(249);
    expect(ALPHA_3.size).to.equal(249);
    for (const code of [...ALPHA_2, ...ALPHA_3]) expectValid({ format: 'country' }, code);
  });

  it('formats apply to strings only', () => {
    expectValid({ format: 'country' }, 42);
    expectValid({ format: 'email' }, null);
  });

  it('an unknown format fails to compile (strict mode), and so do formats asserted only loosely elsewhere', () => {
    expectRefused({ format: 'iban' }, 'SCHEMA_INVALID', /unknown format "iban"/);
    expectRefused({ properties: { a: { format: 'hostname' } } }, 'SCHEMA_INVALID', /unknown format "hostname" at #\/properties\/a/);
  });
});
