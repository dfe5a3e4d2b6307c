import { expect } from 'chai';
import { compiler, core, expectDataInvalid, expectRefused, expectValid, knownSchemas } from './support.js';

const D = 'https://json-schema.org/draft/2020-12/schema';

describe('strict mode (contract 8)', () => {
  it('refuses unknown keywords, wherever they are, naming where', () => {
    expectRefused({ type: 'string', maxLenght: 3 }, 'SCHEMA_INVALID', /unknown keyword "maxLenght" at #/);
    expectRefused(
      { properties: { a: { $defs: { b: { nullable: true } } } } },
      'SCHEMA_INVALID',
      /unknown keyword "nullable" at #\/properties\/a\/\$defs\/b/,
    );
    // Keywords of older drafts are not 2020-12 keywords, even though Ajv would accept them.
    expectRefused({ definitions: { a: {} } }, 'SCHEMA_INVALID', /unknown keyword "definitions"/);
    expectRefused({ dependencies: { a: ['b'] } }, 'SCHEMA_INVALID', /unknown keyword "dependencies"/);
  });

  it('has $data off: a $data reference is not a number', () => {
    expectRefused({ properties: { max: true, n: { maximum: { $data: '1/max' } } } }, 'SCHEMA_INVALID', /schema is invalid/);
  });

  it('refuses a $schema other than the 2020-12 URI', () => {
    expectRefused({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' }, 'SCHEMA_INVALID', /unsupported \$schema/);
    expectRefused(
      { $defs: { a: { $id: 'urn:a', $schema: 'https://json-schema.org/draft/2019-09/schema' } } },
      'SCHEMA_INVALID',
      /unsupported \$schema/,
    );
    expectValid({ $schema: D, type: 'string' }, 'a');
  });

  it('refuses what the metaschema refuses', () => {
    expectRefused({ minLength: -1 }, 'SCHEMA_INVALID', /schema is invalid/);
    expectRefused({ type: 'strin' }, 'SCHEMA_INVALID', /schema is invalid/);
    expectRefused({ pattern: '(' }, 'SCHEMA_INVALID', /schema is invalid|invalid regular expression/);
    expectRefused('not a schema', 'SCHEMA_INVALID', /JSON object or a boolean/);
  });

  it('does not require type beside other keywords nor declared required properties, so the recipes compile', () => {
    expectValid({ required: ['x'] }, { x: 1 });
    expectValid({ minimum: 1, maxLength: 2 }, 'ab');
    expectValid({ prefixItems: [{ type: 'string' }] }, ['a', 1, 2]);
    expectValid(
      { allOf: [{ $ref: core('PersonFullName') }, { required: ['middleNames'] }] },
      { givenName: 'A', familyName: 'B', middleNames: 'C' },
    );
  });

  it('compiles every 2020-12 keyword, including those Ajv strict mode refuses', () => {
    expectValid({ if: { type: 'string' } }, 1);
    expectValid({ then: { type: 'string' }, else: false }, 1);
    expectValid({ minContains: 2 }, [1]);
    expectValid({ properties: { foo: { type: 'string' } }, patternProperties: { 'f.o': { minLength: 2 } } }, { foo: 'ab' });
    expectDataInvalid({ enum: [] }, 'anything', 'enum');
    const everything = {
      $schema: D,
      $id: 'https://example.test/all',
      $anchor: 'all',
      $dynamicAnchor: 'meta',
      $comment: 'c',
      $vocabulary: { 'https://json-schema.org/draft/2020-12/vocab/core': true },
      title: 't',
      description: 'd',
      default: {},
      deprecated: false,
      readOnly: false,
      writeOnly: false,
      examples: [{}],
      type: 'object',
      properties: {
        a: {
          type: 'string',
          minLength: 1,
          maxLength: 9,
          pattern: '^a',
          format: 'email',
          contentEncoding: 'base64',
          contentMediaType: 'application/json',
          contentSchema: true,
        },
      },
      patternProperties: { '^n': { type: 'number', minimum: 0, maximum: 9, exclusiveMinimum: -1, exclusiveMaximum: 10, multipleOf: 1 } },
      additionalProperties: true,
      propertyNames: { maxLength: 9 },
      required: [],
      dependentRequired: {},
      dependentSchemas: {},
      minProperties: 0,
      maxProperties: 9,
      unevaluatedProperties: true,
      allOf: [true],
      anyOf: [true],
      oneOf: [true],
      not: false,
      if: true,
      then: true,
      else: true,
      const: {},
      enum: [{}],
      $defs: {
        arr: {
          prefixItems: [true],
          items: true,
          contains: true,
          minContains: 0,
          maxContains: 9,
          minItems: 0,
          maxItems: 9,
          uniqueItems: true,
          unevaluatedItems: true,
        },
      },
      $ref: '#/$defs/arr',
      $dynamicRef: '#meta',
    };
    expect('ok' in compiler().compile(everything)).to.equal(false);
  });

  it('accepts $anchor (Ajv refuses it in strict mode unless declared)', () => {
    expectValid({ $ref: '#x', $defs: { a: { $anchor: 'x', type: 'integer' } } }, 1);
  });

  it('does not let the prototype satisfy required: ["__proto__"] (Ajv without ownProperties does)', () => {
    expectDataInvalid({ required: ['__proto__'] }, {}, 'required');
    expectDataInvalid({ required: ['constructor', 'toString'] }, {}, 'required');
    expectValid({ required: ['__proto__'] }, JSON.parse('{"__proto__": 1}'));
    // Ajv skips a property named __proto__ altogether; the direct evaluator judges it.
    expectDataInvalid(JSON.parse('{"properties": {"__proto__": {"type": "number"}}}'), JSON.parse('{"__proto__": "x"}'), 'type');
  });
});

describe('references (spec 4.2: built-ins resolve locally, other absolute URLs are not found)', () => {
  it('resolves a canonical built-in URL without the network', () => {
    expectValid({ $ref: core('PersonFullName') }, { givenName: 'Anna', familyName: 'Muster' });
    expectDataInvalid({ $ref: core('PersonFullName') }, { givenName: 'Anna' }, 'required');
  });

  it('answers schema not found for any other absolute URL, at compile time', () => {
    expectRefused({ $ref: 'https://schemas.example.com/person.json' }, 'SCHEMA_NOT_FOUND', /^schema not found$/);
    expectRefused(
      { properties: { a: { $ref: 'https://other-host.example/schemas/core/PersonFullName.json' } } },
      'SCHEMA_NOT_FOUND',
      /^schema not found$/,
    );
    expectRefused({ $ref: 'http://localhost:3000/schemas/core/NoSuchSchema.json' }, 'SCHEMA_NOT_FOUND', /^schema not found$/);
    expectRefused({ $dynamicRef: 'https://schemas.example.com/x.json#meta' }, 'SCHEMA_NOT_FOUND', /^schema not found$/);
    const result = compiler().validate({ $ref: 'https://schemas.example.com/person.json' }, {});
    expect(result).to.deep.include({ code: 'SCHEMA_NOT_FOUND', ref: 'https://schemas.example.com/person.json' });
  });

  it('answers schema not found for a relative reference that would need fetching, or a missing local target', () => {
    expectRefused({ $ref: 'person.json' }, 'SCHEMA_NOT_FOUND', /^schema not found$/);
    expectRefused({ $ref: '#/$defs/missing' }, 'SCHEMA_NOT_FOUND', /^schema not found$/);
    expectRefused({ $ref: '#nowhere' }, 'SCHEMA_NOT_FOUND', /^schema not found$/);
  });

  it('resolves #/$defs/... and embedded resources with their own $id within the schema', () => {
    expectValid({ $ref: '#/$defs/a', $defs: { a: { type: 'integer' } } }, 1);
    const embedded = {
      $id: 'https://example.test/root.json',
      properties: { name: { $ref: 'name.json' }, code: { $ref: 'urn:example:code' } },
      $defs: { name: { $id: 'name.json', type: 'string' }, code: { $id: 'urn:example:code', pattern: '^[A-Z]+$' } },
    };
    expectValid(embedded, { name: 'x', code: 'AB' });
    expectDataInvalid(embedded, { name: 1 }, 'type');
    expectDataInvalid(embedded, { code: 'ab' }, 'pattern');
  });

  it("keeps one schema's $id out of every other schema's resolution", () => {
    const c = compiler();
    expect(c.validate({ $id: 'https://leak.example/a.json', type: 'string' }, 'x')).to.deep.equal({ ok: true });
    expect(c.validate({ $ref: 'https://leak.example/a.json' }, 'x')).to.deep.include({ code: 'SCHEMA_NOT_FOUND' });
  });

  it('refuses duplicate identifiers', () => {
    expectRefused({ $defs: { a: { $id: 'urn:x' }, b: { $id: 'urn:x' } } }, 'SCHEMA_INVALID', /duplicate schema identifier/);
  });

  it('caches compiled schemas by a hash of the canonical schema', () => {
    const c = compiler();
    const first = c.compile({ type: 'object', required: ['a', 'b'], properties: { a: true } });
    const again = c.compile({ properties: { a: true }, required: ['a', 'b'], type: 'object' });
    expect(again).to.equal(first);
  });
});

describe('content and vocabulary assertion (spec 4.2)', () => {
  it('checks contentEncoding base64 and contentMediaType application/json, not only annotates them', () => {
    expectDataInvalid({ contentEncoding: 'base64' }, 'eyJhIjoxfQ', 'contentEncoding');
    expectDataInvalid({ contentMediaType: 'application/json' }, '{"a":', 'contentMediaType');
    expectValid({ contentMediaType: 'application/vnd.example+json' }, '[1]');
    // Media types we cannot parse stay annotations; an encoding we cannot decode fails to compile.
    expectValid({ contentMediaType: 'image/png', contentEncoding: 'base64' }, 'iVBORw0KGgo=');
    expectRefused({ contentEncoding: 'base32' }, 'SCHEMA_INVALID', /unsupported contentEncoding "base32"/);
  });

  it('refuses a schema requiring an unknown vocabulary; an optional one is ignored', () => {
    expectRefused(
      { $vocabulary: { 'https://example.test/vocab/money': true } },
      'SCHEMA_INVALID',
      /requires the unknown vocabulary "https:\/\/example.test\/vocab\/money"/,
    );
    expectValid({ $vocabulary: { 'https://example.test/vocab/money': false }, type: 'string' }, 'a');
  });

  it('refuses a schema whose metaschema requires an unknown vocabulary', () => {
    const meta = 'https://example.test/meta/money';
    const metaschema = {
      $schema: D,
      $id: meta,
      $vocabulary: { 'https://json-schema.org/draft/2020-12/vocab/core': true, 'https://example.test/vocab/money': true },
    };
    const c = compiler({ external: knownSchemas([[meta, metaschema]]) });
    const result = c.validate({ $schema: meta, type: 'string' }, 'a');
    expect(result).to.deep.include({ code: 'SCHEMA_INVALID' });
    expect(result.ok === false && result.message).to.match(/requires the unknown vocabulary "https:\/\/example.test\/vocab\/money"/);
  });
});

describe('never a wrong verdict: forms Ajv answers wrongly go to the direct evaluator', () => {
  const engineOf = (schema: object) => {
    const compiled = compiler().compile(schema as never);
    return 'ok' in compiled ? compiled.code : compiled.engine;
  };

  it('routes $dynamicRef, unevaluated* and a __proto__ property to the evaluator', () => {
    expect(engineOf({ $dynamicRef: '#a', $defs: { a: { $dynamicAnchor: 'a' } } })).to.equal('evaluator');
    expect(engineOf({ contains: { type: 'string' }, unevaluatedItems: false })).to.equal('evaluator');
    expect(engineOf(JSON.parse('{"properties": {"__proto__": true}}'))).to.equal('evaluator');
    expect(engineOf({ $ref: core('UBOStructure') })).to.equal('ajv');
  });

  it('judges the forms Ajv gets wrong correctly (ajv issues 1745, 1573 and unevaluated annotations)', () => {
    // unevaluatedItems sees the items contains matched (Ajv ignores contains annotations).
    expectDataInvalid({ prefixItems: [true], contains: { type: 'string' }, unevaluatedItems: false }, [1, 2, 'foo'], 'unevaluatedItems');
    expectValid({ prefixItems: [true], contains: { type: 'string' }, unevaluatedItems: false }, [1, 'foo']);
    // An if without then still contributes its annotations when it passes, and none when it fails.
    const ifOnly = { if: { properties: { a: true }, required: ['a'] }, else: { properties: { b: true } }, unevaluatedProperties: false };
    expectValid(ifOnly, { a: 1 });
    expectDataInvalid(ifOnly, { c: 1 }, 'unevaluatedProperties');
    // The outermost resource binds the dynamic anchor, however the evaluation got there.
    const extendible = {
      $id: 'https://example.test/strict',
      $ref: 'base',
      $defs: {
        elements: { $dynamicAnchor: 'elements', required: ['a'] },
        base: { $id: 'base', properties: { list: { items: { $dynamicRef: '#elements' } } }, $defs: { e: { $dynamicAnchor: 'elements' } } },
      },
    };
    expectValid(extendible, { list: [{ a: 1 }] });
    expectDataInvalid(extendible, { list: [{ b: 1 }] }, 'required');
  });
});
