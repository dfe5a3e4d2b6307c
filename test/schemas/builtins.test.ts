import { expect } from 'chai';
import type { JsonValue } from '../../src/events/envelope.js';
import { BUILTIN_NAMES, loadBuiltins } from '../../src/schemas/builtins.js';
import type { BuiltinName } from '../../src/schemas/builtins.js';
import { SchemaCompiler } from '../../src/schemas/compiler.js';
import { loadMetaschemas } from '../../src/schemas/metaschemas.js';
import { compiler, core, expectDataInvalid, expectValid, SCHEMA_BASE } from './support.js';

const anna = { givenName: 'Anna', familyName: 'Muster' };

// A realistic, valid document for every built-in.
const SAMPLES: Record<BuiltinName, JsonValue> = {
  PersonFullName: { ...anna, middleNames: 'Maria', title: 'Dr.' },
  PersonAddress: {
    street: 'Bahnhofstrasse',
    houseNumber: '1',
    postalCode: '8001',
    locality: 'Zürich',
    country: 'CH',
    validFrom: '2020-01-01',
  },
  PersonBankAccount: { iban: 'CH9300762011623852957', bic: 'UBSWCHZH80A', accountHolder: 'Anna Muster', currency: 'CHF' },
  LegalEntity: {
    legalName: 'Muster AG',
    legalForm: 'AG',
    lei: '5299000J2N45DDNE4Y28',
    incorporationDate: '2001-05-01',
    incorporationCountry: 'CHE',
    website: 'https://muster.example',
  },
  UBOStructure: {
    asOfDate: '2024-01-01',
    owners: [{ name: anna, birthDate: '1980-01-01', nationality: 'CH', ownershipPercent: 60, controlType: 'ownership', direct: true }],
  },
  PersonBirth: { birthDate: '1980-01-01', placeOfBirth: 'Bern', countryOfBirth: 'CH' },
  PersonNationality: { nationalities: ['CH', 'DE'], primary: 'CH' },
  PersonContact: { email: 'anna@muster.example', phone: '+41446681800', preferredLanguage: 'de-CH' },
  PersonIdentityDocument: {
    documentType: 'passport',
    documentNumber: 'X1234567',
    issuingCountry: 'CHE',
    issueDate: '2020-01-01',
    expiryDate: '2030-01-01',
  },
  PersonTaxResidency: { residencies: [{ country: 'CH', tin: '756.1234.5678.97' }], usPerson: false },
  PersonEmployment: {
    status: 'employed',
    occupation: 'Engineer',
    employerName: 'Muster AG',
    employerCountry: 'CH',
    startDate: '2015-03-01',
  },
  PersonIncome: { amount: 120000.5, currency: 'CHF', period: 'annual', incomeType: 'salary', year: 2023 },
  PersonPoliticalExposure: { isPep: true, relationship: 'self', function: 'Member of parliament', country: 'CH', since: '2019-12-02' },
  PersonSourceOfFunds: { sources: ['salary', 'savings'], expectedAnnualVolume: { amount: 50000, currency: 'CHF' } },
  PersonResidencePermit: { permitType: 'B', permitNumber: 'B123456', issuingCountry: 'CH', validUntil: '2027-01-31', workPermitted: true },
  LegalEntityAddress: {
    addressType: 'registered',
    street: 'Paradeplatz',
    houseNumber: '8',
    postalCode: '8001',
    locality: 'Zürich',
    country: 'CH',
  },
  LegalEntityRegistration: {
    registerName: 'Handelsregister',
    registrationNumber: 'CHE-123.456.789',
    country: 'CH',
    registrationDate: '2001-05-01',
    status: 'active',
  },
  LegalEntityTaxId: { country: 'CH', taxIdType: 'vat', value: 'CHE-123.456.789 MWST' },
  LegalEntityBankAccount: { iban: 'DE89370400440532013000', accountHolder: 'Muster GmbH', currency: 'EUR', country: 'DE' },
  LegalEntityRepresentative: {
    name: anna,
    role: 'managing-director',
    signingAuthority: 'sole',
    appointedOn: '2018-01-01',
    email: 'anna@muster.example',
  },
  LegalEntityShareholder: { kind: 'legal-entity', sharePercent: 25.5, legalName: 'Holding AG', country: 'LI' },
  LegalEntityFinancials: {
    fiscalYearEnd: '2023-12-31',
    currency: 'CHF',
    revenue: 1000000,
    netIncome: -5000.25,
    employees: 12,
    audited: true,
  },
  LegalEntityLicense: {
    licenseType: 'payment institution',
    licenseNumber: 'FINMA-42',
    issuingAuthority: 'FINMA',
    country: 'CH',
    status: 'active',
  },
  LegalEntityContact: { email: 'info@muster.example', phone: '+41446681800', website: 'https://muster.example', contactPerson: anna },
};

describe('built-in schemas (spec 2.8, contract 7)', () => {
  const builtins = loadBuiltins(SCHEMA_BASE);
  const shared = compiler();

  it('are 24, named once each, the spec five among them', () => {
    expect(BUILTIN_NAMES).to.have.length(24);
    expect(new Set(BUILTIN_NAMES).size).to.equal(24);
    expect(BUILTIN_NAMES).to.include.members(['PersonFullName', 'PersonAddress', 'PersonBankAccount', 'LegalEntity', 'UBOStructure']);
  });

  it('carry $id {SCHEMA_BASE}/core/<Name>.json and the 2020-12 $schema', () => {
    for (const b of builtins) {
      expect(b.id).to.equal(`${SCHEMA_BASE}/core/${b.name}.json`);
      expect(b.schema.$id).to.equal(b.id);
      expect(b.schema.$schema).to.equal('https://json-schema.org/draft/2020-12/schema');
      expect(b.schema.type).to.equal('object');
    }
  });

  it('take their $id from the configured base, and their references between each other follow', () => {
    const base = 'https://kyc.example.org/api/schemas/';
    const moved = loadBuiltins(base);
    expect(moved[0]?.id).to.equal(`https://kyc.example.org/api/schemas/core/${moved[0]?.name}.json`);
    const c = new SchemaCompiler({ external: new Map([...loadMetaschemas(), ...moved.map((b) => [b.id, b.schema] as const)]) });
    const ubo = moved.find((b) => b.name === 'UBOStructure');
    expect(c.validate({ $ref: ubo?.id ?? '' }, SAMPLES.UBOStructure)).to.deep.equal({ ok: true });
    expect(c.validate({ $ref: core('UBOStructure') }, SAMPLES.UBOStructure)).to.deep.include({ code: 'SCHEMA_NOT_FOUND' });
  });

  for (const name of BUILTIN_NAMES) {
    it(`${name} compiles in strict mode and accepts a realistic document`, () => {
      const b = builtins.find((x) => x.name === name);
      expect(b).to.not.equal(undefined);
      const compiled = shared.compile(b?.schema ?? null);
      expect('ok' in compiled ? compiled.message : compiled.engine).to.equal('ajv');
      expectValid({ $ref: core(name) }, SAMPLES[name]);
      expectDataInvalid({ $ref: core(name) }, {}, 'required');
    });
  }

  it('have real constraints: IBAN shape, ISO country and currency, dates, emails', () => {
    const account = SAMPLES.PersonBankAccount as Record<string, JsonValue>;
    expectDataInvalid({ $ref: core('PersonBankAccount') }, { ...account, iban: 'CH93 0076 2011 6238 5295 7' }, 'pattern');
    expectDataInvalid({ $ref: core('PersonBankAccount') }, { ...account, iban: '9300762011623852957' }, 'pattern');
    expectDataInvalid({ $ref: core('PersonBankAccount') }, { ...account, currency: 'chf' }, 'format');
    expectDataInvalid({ $ref: core('PersonNationality') }, { nationalities: ['CH', 'Swiss'] }, 'format');
    expectDataInvalid({ $ref: core('PersonNationality') }, { nationalities: ['CH', 'CH'] }, 'uniqueItems');
    expectDataInvalid({ $ref: core('PersonBirth') }, { birthDate: '1980-02-30' }, 'format');
    expectDataInvalid({ $ref: core('PersonContact') }, { email: 'anna at muster' }, 'format');
    expectDataInvalid({ $ref: core('PersonContact') }, { email: 'a@b.ch', phone: '044 668 18 00' }, 'pattern');
    expectDataInvalid({ $ref: core('LegalEntity') }, { legalName: 'X', incorporationCountry: 'CH', lei: 'short' }, 'pattern');
  });

  it('tie dependent fields together where KYC rules do', () => {
    expectDataInvalid({ $ref: core('PersonPoliticalExposure') }, { isPep: true }, 'required');
    expectValid({ $ref: core('PersonPoliticalExposure') }, { isPep: false });
    expectDataInvalid({ $ref: core('LegalEntityShareholder') }, { kind: 'person', sharePercent: 10, legalName: 'Not a person' }, 'oneOf');
    expectValid({ $ref: core('LegalEntityShareholder') }, { kind: 'person', sharePercent: 10, name: anna });
    expectDataInvalid(
      { $ref: core('UBOStructure') },
      { asOfDate: '2024-01-01', owners: [{ name: anna, controlType: 'ownership', ownershipPercent: 101 }] },
      'maximum',
    );
  });
});
