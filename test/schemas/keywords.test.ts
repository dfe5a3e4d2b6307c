import type { JsonValue } from '../../src/events/envelope.js';
import { expect } from 'chai';
import { compiler, expectDataInvalid, expectValid } from './support.js';

type Case = { schema: JsonValue; valid: JsonValue; invalid: JsonValue; keyword: string };

const D = 'https://json-schema.org/draft/2020-12/schema';

// One passing and one failing instance per keyword of spec §4.2's list, then the rest of 2020-12.
const SPEC_KEYWORDS: Record<string, Case> = {
  type: { schema: { type: 'string' }, valid: 'a', invalid: 1, keyword: 'type' },
  properties: { schema: { properties: { age: { type: 'integer' } } }, valid: { age: 3 }, invalid: { age: 'x' }, keyword: 'type' },
  required: { schema: { required: ['name'] }, valid: { name: 'x' }, invalid: {}, keyword: 'required' },
  additionalProperties: {
    schema: { properties: { a: true }, additionalProperties: false },
    valid: { a: 1 },
    invalid: { a: 1, b: 2 },
    keyword: 'additionalProperties',
  },
  patternProperties: {
    schema: { patternProperties: { '^x-': { type: 'string' } } },
    valid: { 'x-a': 'y', b: 1 },
    invalid: { 'x-a': 1 },
    keyword: 'type',
  },
  allOf: { schema: { allOf: [{ minimum: 1 }, { maximum: 3 }] }, valid: 2, invalid: 4, keyword: 'maximum' },
  anyOf: { schema: { anyOf: [{ type: 'string' }, { type: 'null' }] }, valid: null, invalid: 1, keyword: 'anyOf' },
  oneOf: { schema: { oneOf: [{ multipleOf: 2 }, { multipleOf: 3 }] }, valid: 4, invalid: 6, keyword: 'oneOf' },
  not: { schema: { not: { type: 'null' } }, valid: 0, invalid: null, keyword: 'not' },
  'if/then/else': {
    schema: { if: { properties: { kind: { const: 'a' } } }, then: { required: ['a'] }, else: { required: ['b'] } },
    valid: { kind: 'a', a: 1 },
    invalid: { kind: 'z', a: 1 },
    keyword: 'required',
  },
  enum: { schema: { enum: ['red', 'green', 1] }, valid: 'green', invalid: 'blue', keyword: 'enum' },
  const: { schema: { const: { a: [1, 2] } }, valid: { a: [1.0, 2] }, invalid: { a: [2, 1] }, keyword: 'const' },
  pattern: { schema: { pattern: '^[A-Z]{2}$' }, valid: 'CH', invalid: 'ch', keyword: 'pattern' },
  minLength: { schema: { minLength: 2 }, valid: '😀😀', invalid: '😀', keyword: 'minLength' },
  maxLength: { schema: { maxLength: 2 }, valid: '😀😀', invalid: 'abc', keyword: 'maxLength' },
  minimum: { schema: { minimum: 5 }, valid: 5, invalid: 4.99, keyword: 'minimum' },
  maximum: { schema: { maximum: 5 }, valid: 5, invalid: 5.01, keyword: 'maximum' },
  exclusiveMinimum: { schema: { exclusiveMinimum: 5 }, valid: 5.01, invalid: 5, keyword: 'exclusiveMinimum' },
  exclusiveMaximum: { schema: { exclusiveMaximum: 5 }, valid: 4.99, invalid: 5, keyword: 'exclusiveMaximum' },
  multipleOf: { schema: { multipleOf: 0.01 }, valid: 19.99, invalid: 19.999, keyword: 'multipleOf' },
  minItems: { schema: { minItems: 1 }, valid: [1], invalid: [], keyword: 'minItems' },
  maxItems: { schema: { maxItems: 1 }, valid: [1], invalid: [1, 2], keyword: 'maxItems' },
  uniqueItems: {
    schema: { uniqueItems: true },
    valid: [{ a: 1 }, { a: 2 }],
    invalid: [
      { a: 1, b: 2 },
      { b: 2, a: 1.0 },
    ],
    keyword: 'uniqueItems',
  },
  minProperties: { schema: { minProperties: 1 }, valid: { a: 1 }, invalid: {}, keyword: 'minProperties' },
  maxProperties: { schema: { maxProperties: 1 }, valid: { a: 1 }, invalid: { a: 1, b: 2 }, keyword: 'maxProperties' },
  $ref: {
    schema: { properties: { n: { $ref: '#/$defs/positive' } }, $defs: { positive: { exclusiveMinimum: 0 } } },
    valid: { n: 1 },
    invalid: { n: 0 },
    keyword: 'exclusiveMinimum',
  },
  $defs: { schema: { $ref: '#/$defs/name', $defs: { name: { type: 'string' } } }, valid: 'x', invalid: 1, keyword: 'type' },
  $anchor: {
    schema: { $ref: '#short', $defs: { s: { $anchor: 'short', maxLength: 3 } } },
    valid: 'abc',
    invalid: 'abcd',
    keyword: 'maxLength',
  },
  $dynamicRef: {
    // The generic list names its items dynamically; the outer resource binds them to strings.
    schema: {
      $schema: D,
      $id: 'https://example.test/strings',
      $ref: 'list',
      $defs: {
        item: { $dynamicAnchor: 'item', type: 'string' },
        list: { $id: 'list', type: 'array', items: { $dynamicRef: '#item' }, $defs: { any: { $dynamicAnchor: 'item' } } },
      },
    },
    valid: ['a', 'b'],
    invalid: ['a', 1],
    keyword: 'type',
  },
  items: { schema: { items: { type: 'integer' } }, valid: [1, 2], invalid: [1, 'x'], keyword: 'type' },
  prefixItems: {
    schema: { prefixItems: [{ type: 'string' }, { type: 'integer' }] },
    valid: ['a', 1, null],
    invalid: [1, 'a'],
    keyword: 'type',
  },
  contains: { schema: { contains: { const: 'x' } }, valid: ['a', 'x'], invalid: ['a'], keyword: 'contains' },
};

const OTHER_KEYWORDS: Record<string, Case> = {
  propertyNames: { schema: { propertyNames: { maxLength: 3 } }, valid: { abc: 1 }, invalid: { abcd: 1 }, keyword: 'propertyNames' },
  dependentRequired: {
    schema: { dependentRequired: { iban: ['accountHolder'] } },
    valid: { iban: 'x', accountHolder: 'y' },
    invalid: { iban: 'x' },
    keyword: 'dependentRequired',
  },
  dependentSchemas: {
    schema: { dependentSchemas: { iban: { required: ['bic'] } } },
    valid: { other: 1 },
    invalid: { iban: 'x' },
    keyword: 'required',
  },
  minContains: { schema: { contains: { const: 1 }, minContains: 2 }, valid: [1, 1], invalid: [1, 2], keyword: 'contains' },
  maxContains: { schema: { contains: { const: 1 }, maxContains: 1 }, valid: [1, 2], invalid: [1, 1], keyword: 'contains' },
  unevaluatedProperties: {
    schema: { allOf: [{ properties: { a: true } }], unevaluatedProperties: false },
    valid: { a: 1 },
    invalid: { a: 1, b: 2 },
    keyword: 'unevaluatedProperties',
  },
  unevaluatedItems: { schema: { prefixItems: [true], unevaluatedItems: false }, valid: [1], invalid: [1, 2], keyword: 'unevaluatedItems' },
  $dynamicAnchor: {
    schema: { $ref: '#node', $defs: { n: { $dynamicAnchor: 'node', type: 'object' } } },
    valid: {},
    invalid: [],
    keyword: 'type',
  },
  contentEncoding: { schema: { contentEncoding: 'base64' }, valid: 'eyJhIjoxfQ==', invalid: 'not base64!', keyword: 'contentEncoding' },
  contentMediaType: { schema: { contentMediaType: 'application/json' }, valid: '{"a":1}', invalid: '{a:1}', keyword: 'contentMediaType' },
  'contentEncoding + contentMediaType': {
    schema: { contentEncoding: 'base64', contentMediaType: 'application/json' },
    valid: 'eyJhIjoxfQ==',
    invalid: 'e2E6MX0=',
    keyword: 'contentMediaType',
  },
  'boolean schema': { schema: { properties: { never: false } }, valid: {}, invalid: { never: 1 }, keyword: 'false schema' },
};

describe('keywords (spec 4.2: every keyword has a passing and a failing case)', () => {
  for (const [name, c] of Object.entries({ ...SPEC_KEYWORDS, ...OTHER_KEYWORDS })) {
    it(`${name}: accepts ${JSON.stringify(c.valid)}, refuses ${JSON.stringify(c.invalid)}`, () => {
      expectValid(c.schema, c.valid);
      expectDataInvalid(c.schema, c.invalid, c.keyword);
    });
  }

  it('multipleOf is exact on decimals and on large numbers (Ajv alone refuses 19.99 for 0.01, 1e22 for 2)', () => {
    expectValid({ multipleOf: 0.01 }, 19.99);
    expectValid({ multipleOf: 0.01 }, 4.35);
    expectValid({ multipleOf: 0.0001 }, 0.0075);
    expectValid({ multipleOf: 2 }, 1e22);
    expectDataInvalid({ multipleOf: 0.123456789 }, 1e308, 'multipleOf');
  });

  it('equality compares JSON values, not JavaScript objects (Ajv alone trips on own constructor or toString)', () => {
    const withConstructor = JSON.parse('{"constructor": {}, "toString": 1}') as JsonValue;
    expectValid({ const: withConstructor }, JSON.parse('{"toString": 1, "constructor": {}}') as JsonValue);
    expectValid({ enum: [1, withConstructor] }, JSON.parse('{"constructor": {}, "toString": 1}') as JsonValue);
    expectDataInvalid(
      { uniqueItems: true },
      [withConstructor, JSON.parse('{"constructor": {}, "toString": 1}') as JsonValue],
      'uniqueItems',
    );
    expectDataInvalid({ const: { toString: 1 } }, { toString: 2 }, 'const');
  });

  it('a data failure names the instance path, the keyword and the message', () => {
    const result = compiler().validate({ properties: { list: { items: { type: 'string' } } } }, { list: ['a', 2] });
    expect(result).to.deep.equal({
      ok: false,
      code: 'DATA_INVALID',
      message: '/list/1 must be string',
      errors: [{ instancePath: '/list/1', keyword: 'type', message: 'must be string' }],
    });
  });
});
