import { expect } from 'chai';
import type { JsonValue } from '../../src/events/envelope.js';
import { BUILTIN_NAMES, builtinId, loadBuiltins } from '../../src/schemas/builtins.js';
import { SchemaCompiler } from '../../src/schemas/compiler.js';
import { SchemaValidator } from '../../src/schemas/validator.js';
import { loadMetaschemas } from '../../src/schemas/metaschemas.js';
import { anna, SAMPLES } from './builtin-samples.js';
import { compiler, core, expectDataInvalid, expectValid, SCHEMA_BASE } from './support.js';

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

describe('a document judged by its built-in ref', () => {
  const servedBefore = 'https://old.example.org/schemas';
  let validator: SchemaValidator;
  before(() => {
    validator = new SchemaValidator({ schemaBase: SCHEMA_BASE, servedBases: [servedBefore], poolSize: 1 });
  });
  after(() => validator.close());

  it('is judged by the built-in it names however the ref is spelled, the same each time, and an unknown ref is not found', () => {
    const spellingsOf = (name: 'PersonBirth' | 'PersonContact') => {
      const ref = core(name);
      return [ref, `${ref}#`, ref.replace('http://localhost', 'HTTP://LOCALHOST'), builtinId(servedBefore, name)];
    };
    // Many spellings, alternating two built-ins: each ref is judged by its own.
    const many = Array.from({ length: 1_200 }, (_, i) => `${core('PersonBirth')}#${i}`);
    for (const _again of [1, 2]) {
      for (const spelling of [...spellingsOf('PersonBirth'), ...many]) {
        expect(validator.validateWithBuiltin(spelling, SAMPLES.PersonBirth), spelling).to.deep.equal({ ok: true });
        expect(validator.validateWithBuiltin(spelling, SAMPLES.PersonContact), spelling).to.deep.include({ code: 'DATA_INVALID' });
      }
      for (const spelling of spellingsOf('PersonContact')) {
        expect(validator.validateWithBuiltin(spelling, SAMPLES.PersonContact), spelling).to.deep.equal({ ok: true });
        expect(validator.validateWithBuiltin(spelling, SAMPLES.PersonBirth), spelling).to.deep.include({ code: 'DATA_INVALID' });
      }
    }
    expect(validator.validateWithBuiltin(`${SCHEMA_BASE}/core/PersonBirthday.json`, {})).to.deep.include({ code: 'SCHEMA_NOT_FOUND' });
    expect(validator.validateWithBuiltin('not a uri %', {})).to.deep.include({ code: 'SCHEMA_NOT_FOUND' });
  });
});
