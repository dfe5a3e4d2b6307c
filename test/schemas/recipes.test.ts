import type { JsonValue } from '../../src/events/envelope.js';
import { core, expectDataInvalid, expectValid } from './support.js';

const anna = { givenName: 'Anna', familyName: 'Muster' };
const address = { street: 'Bahnhofstrasse', houseNumber: '1', locality: 'Zürich', country: 'CH' };

describe('composition recipes (spec 4.2)', () => {
  it('allOf + $ref + required makes an optional built-in field mandatory', () => {
    const schema: JsonValue = { allOf: [{ $ref: core('PersonAddress') }, { required: ['postalCode'] }] };
    expectValid(schema, { ...address, postalCode: '8001' });
    expectDataInvalid(schema, address, 'required');
    // The built-in's own constraints still hold.
    expectDataInvalid(schema, { ...address, postalCode: '8001', country: 'Switzerland' }, 'format');
  });

  it('a second allOf branch with properties and required extends a built-in', () => {
    const schema: JsonValue = {
      allOf: [
        { $ref: core('PersonFullName') },
        { properties: { preferredName: { type: 'string', minLength: 1 } }, required: ['preferredName'] },
      ],
    };
    expectValid(schema, { ...anna, preferredName: 'Anni' });
    expectDataInvalid(schema, anna, 'required');
    expectDataInvalid(schema, { ...anna, preferredName: '' }, 'minLength');
  });

  it('several built-ins compose as named properties, each with its own $ref', () => {
    const schema: JsonValue = {
      type: 'object',
      properties: {
        name: { $ref: core('PersonFullName') },
        address: { $ref: core('PersonAddress') },
        birth: { $ref: core('PersonBirth') },
      },
      required: ['name', 'address'],
    };
    expectValid(schema, { name: anna, address, birth: { birthDate: '1990-04-01' }, note: 'extra fields are allowed' });
    expectDataInvalid(schema, { name: anna, address: { ...address, country: 'XX' } }, 'format');
    expectDataInvalid(schema, { name: anna, address, birth: { birthDate: '1990-02-30' } }, 'format');
    expectDataInvalid(schema, { name: anna }, 'required');
  });

  it('additional properties are allowed unless the outer object sets additionalProperties false', () => {
    const closed: JsonValue = { type: 'object', properties: { name: { $ref: core('PersonFullName') } }, additionalProperties: false };
    expectValid(closed, { name: { ...anna, nickname: 'inner extras stay allowed' } });
    expectDataInvalid(closed, { name: anna, other: 1 }, 'additionalProperties');
  });

  it('variants in $defs combine with oneOf through a fixed kind discriminator', () => {
    const schema: JsonValue = {
      type: 'object',
      properties: { kind: { enum: ['person', 'company'] } },
      required: ['kind'],
      oneOf: [{ $ref: '#/$defs/person' }, { $ref: '#/$defs/company' }],
      $defs: {
        person: { properties: { kind: { const: 'person' }, name: { $ref: core('PersonFullName') } }, required: ['kind', 'name'] },
        company: { properties: { kind: { const: 'company' }, entity: { $ref: core('LegalEntity') } }, required: ['kind', 'entity'] },
      },
    };
    expectValid(schema, { kind: 'person', name: anna });
    expectValid(schema, { kind: 'company', entity: { legalName: 'Muster AG', incorporationCountry: 'CHE' } });
    expectDataInvalid(schema, { kind: 'company', name: anna }, 'oneOf');
    expectDataInvalid(schema, { kind: 'trust' }, 'enum');
  });
});
