import type { JsonValue } from '../../src/events/envelope.js';
import type { BuiltinName } from '../../src/schemas/builtins.js';

export const anna = { givenName: 'Anna', familyName: 'Muster' };

// A realistic, valid document for every built-in.
export const SAMPLES: Record<BuiltinName, JsonValue> = {
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
