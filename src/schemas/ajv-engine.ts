import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { SchemaValidateFunction } from 'ajv/dist/types/index.js';
import type { JsonValue } from '../events/envelope.js';
import { contentProblem } from './content.js';
import { firstDuplicate, jsonEqual } from './evaluator/equal.js';
import type { Schema } from './dialect.js';
import { FORMATS } from './formats/index.js';
import { isMultipleOf } from './multiple-of.js';
import type { DataError } from './results.js';

type Ajv = Ajv2020;

export type AjvEngineOptions = { readonly assertFormats: boolean; readonly assertContent: boolean };

/**
 * The Ajv 2020 instance. Its strict flags are off because they refuse valid 2020-12 schemas
 * (`if` alone, `minContains` alone, overlapping patternProperties); strict-checks.ts applies
 * the strict mode of R-SCH-01 before Ajv sees a schema. `$data` stays off, and ownProperties on,
 * so `required: ["__proto__"]` is not satisfied by the prototype.
 */
export function createAjv(options: AjvEngineOptions): Ajv {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    ownProperties: true,
    $data: false,
    validateFormats: options.assertFormats,
    validateSchema: false,
    addUsedSchema: false,
    logger: false,
  });
  for (const [name, check] of FORMATS) ajv.addFormat(name, { type: 'string', validate: check });
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword({ keyword: 'multipleOf', type: 'number', schemaType: 'number', errors: true, validate: multipleOf });
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: uniqueItems });
  // Ajv's deep equality (fast-deep-equal) trusts a value's own constructor, toString and valueOf:
  // {"constructor": {}} equals nothing (so duplicates pass uniqueItems) and {"toString": 1} throws.
  ajv.removeKeyword('const');
  ajv.addKeyword({ keyword: 'const', errors: true, validate: constant });
  ajv.removeKeyword('enum');
  ajv.addKeyword({ keyword: 'enum', schemaType: 'array', errors: true, validate: enumeration });
  if (options.assertContent) {
    ajv.removeKeyword('contentEncoding');
    ajv.removeKeyword('contentMediaType');
    ajv.addKeyword({
      keyword: 'contentEncoding',
      type: 'string',
      schemaType: 'string',
      errors: true,
      validate: content('contentEncoding'),
    });
    ajv.addKeyword({
      keyword: 'contentMediaType',
      type: 'string',
      schemaType: 'string',
      errors: true,
      validate: content('contentMediaType'),
    });
  }
  return ajv;
}

const multipleOf: SchemaValidateFunction = (schema: number, data: number) => {
  if (isMultipleOf(data, schema)) return true;
  multipleOf.errors = [{ keyword: 'multipleOf', message: `must be multiple of ${schema}`, params: { multipleOf: schema } }];
  return false;
};

const constant: SchemaValidateFunction = (schema: JsonValue, data: JsonValue) => {
  if (jsonEqual(schema, data)) return true;
  constant.errors = [{ keyword: 'const', message: 'must be equal to constant', params: { allowedValue: schema } }];
  return false;
};

const enumeration: SchemaValidateFunction = (schema: JsonValue[], data: JsonValue) => {
  if (schema.some((v) => jsonEqual(v, data))) return true;
  enumeration.errors = [{ keyword: 'enum', message: 'must be equal to one of the allowed values', params: { allowedValues: schema } }];
  return false;
};

// Also linear: Ajv compares object items pairwise (n²), and 20,000 items take seconds.
const uniqueItems: SchemaValidateFunction = (schema: boolean, data: JsonValue[]) => {
  const duplicate = schema ? firstDuplicate(data) : null;
  if (!duplicate) return true;
  const [i, j] = duplicate;
  uniqueItems.errors = [
    { keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i, j } },
  ];
  return false;
};

function content(keyword: 'contentEncoding' | 'contentMediaType'): SchemaValidateFunction {
  const check: SchemaValidateFunction = (_schema: string, data: string, parent) => {
    const problem = contentProblem(parent?.contentEncoding, parent?.contentMediaType, data);
    // Each keyword reports only its own problem, so a bad base64 string is reported once.
    if (!problem || problem.keyword !== keyword) return true;
    check.errors = [{ keyword, message: problem.message, params: {} }];
    return false;
  };
  return check;
}

/** Checks a schema against the 2020-12 metaschema; the message lists what is wrong. */
export function metaschemaProblem(ajv: Ajv, schema: Schema): string | null {
  if (ajv.validateSchema(schema) === true) return null;
  const errors = (ajv.errors ?? []).slice(0, 5);
  return `schema is invalid: ${ajv.errorsText(errors, { dataVar: 'schema' })}`;
}

/** Compiles a bundled (reference-free) schema; Ajv keeps no copy, so memory stays bounded. */
export function compileWithAjv(ajv: Ajv, bundled: Schema): (data: JsonValue) => DataError[] {
  const validate: ValidateFunction = ajv.compile(bundled);
  ajv.removeSchema(bundled);
  return (data) => (validate(data) ? [] : (validate.errors ?? []).map(toDataError));
}

function toDataError(e: ErrorObject): DataError {
  return { instancePath: e.instancePath, keyword: e.keyword, message: e.message ?? `must pass "${e.keyword}"` };
}
