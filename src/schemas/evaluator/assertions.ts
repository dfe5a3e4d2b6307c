import type { JsonValue } from '../../events/envelope.js';
import { contentProblem } from '../content.js';
import { isSchemaObject } from '../dialect.js';
import type { SchemaObject } from '../dialect.js';
import type { FormatCheck } from '../formats/index.js';
import { isMultipleOf } from '../multiple-of.js';
import type { DataError } from '../results.js';
import { firstDuplicate, jsonEqual } from './equal.js';

export type AssertionContext = {
  readonly formats: ReadonlyMap<string, FormatCheck> | null;
  readonly assertContent: boolean;
  readonly regex: (source: string) => RegExp;
};

/** The keywords that judge a value without descending into subschemas; messages follow Ajv's. */
export function assertionErrors(node: SchemaObject, data: JsonValue, path: string, ctx: AssertionContext): DataError[] {
  const errors: DataError[] = [];
  const fail = (keyword: string, message: string) => errors.push({ instancePath: path, keyword, message });

  if (node.type !== undefined) {
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (!types.some((t) => typeof t === 'string' && hasType(data, t)))
      fail('type', `must be ${types.filter((t) => typeof t === 'string').join(',')}`);
  }
  if (node.const !== undefined && !jsonEqual(node.const, data)) fail('const', 'must be equal to constant');
  if (Array.isArray(node.enum) && !node.enum.some((v) => jsonEqual(v, data))) fail('enum', 'must be equal to one of the allowed values');

  if (typeof data === 'number') {
    const n = (k: string) => (typeof node[k] === 'number' ? node[k] : undefined);
    const multipleOf = n('multipleOf');
    if (multipleOf !== undefined && !isMultipleOf(data, multipleOf)) fail('multipleOf', `must be multiple of ${multipleOf}`);
    const max = n('maximum');
    if (max !== undefined && !(data <= max)) fail('maximum', `must be <= ${max}`);
    const xmax = n('exclusiveMaximum');
    if (xmax !== undefined && !(data < xmax)) fail('exclusiveMaximum', `must be < ${xmax}`);
    const min = n('minimum');
    if (min !== undefined && !(data >= min)) fail('minimum', `must be >= ${min}`);
    const xmin = n('exclusiveMinimum');
    if (xmin !== undefined && !(data > xmin)) fail('exclusiveMinimum', `must be > ${xmin}`);
  }

  if (typeof data === 'string') {
    if (typeof node.maxLength === 'number' || typeof node.minLength === 'number') {
      const length = codePoints(data);
      if (typeof node.maxLength === 'number' && length > node.maxLength)
        fail('maxLength', `must NOT have more than ${node.maxLength} characters`);
      if (typeof node.minLength === 'number' && length < node.minLength)
        fail('minLength', `must NOT have fewer than ${node.minLength} characters`);
    }
    if (typeof node.pattern === 'string' && !ctx.regex(node.pattern).test(data)) fail('pattern', `must match pattern "${node.pattern}"`);
    if (ctx.formats && typeof node.format === 'string') {
      const check = ctx.formats.get(node.format);
      if (check && !check(data)) fail('format', `must match format "${node.format}"`);
    }
    if (ctx.assertContent) {
      const problem = contentProblem(node.contentEncoding, node.contentMediaType, data);
      if (problem) fail(problem.keyword, problem.message);
    }
  }

  if (Array.isArray(data)) {
    if (typeof node.maxItems === 'number' && data.length > node.maxItems)
      fail('maxItems', `must NOT have more than ${node.maxItems} items`);
    if (typeof node.minItems === 'number' && data.length < node.minItems)
      fail('minItems', `must NOT have fewer than ${node.minItems} items`);
    if (node.uniqueItems === true) {
      const dup = firstDuplicate(data);
      if (dup) fail('uniqueItems', `must NOT have duplicate items (items ## ${dup[1]} and ${dup[0]} are identical)`);
    }
  }

  if (isSchemaObject(data)) {
    const count = Object.keys(data).length;
    if (typeof node.maxProperties === 'number' && count > node.maxProperties)
      fail('maxProperties', `must NOT have more than ${node.maxProperties} properties`);
    if (typeof node.minProperties === 'number' && count < node.minProperties)
      fail('minProperties', `must NOT have fewer than ${node.minProperties} properties`);
    if (Array.isArray(node.required)) {
      for (const name of node.required) {
        if (typeof name === 'string' && !Object.hasOwn(data, name)) fail('required', `must have required property '${name}'`);
      }
    }
    if (isSchemaObject(node.dependentRequired)) {
      for (const [name, needed] of Object.entries(node.dependentRequired)) {
        if (!Object.hasOwn(data, name) || !Array.isArray(needed)) continue;
        for (const other of needed) {
          if (typeof other === 'string' && !Object.hasOwn(data, other)) {
            fail('dependentRequired', `must have property ${other} when property ${name} is present`);
          }
        }
      }
    }
  }
  return errors;
}

function hasType(data: JsonValue, type: string): boolean {
  switch (type) {
    case 'null':
      return data === null;
    case 'boolean':
      return typeof data === 'boolean';
    case 'string':
      return typeof data === 'string';
    case 'number':
      return typeof data === 'number';
    case 'integer':
      return typeof data === 'number' && Number.isInteger(data);
    case 'array':
      return Array.isArray(data);
    case 'object':
      return isSchemaObject(data);
    default:
      return false;
  }
}

/** Length in Unicode code points, as JSON Schema counts it (a surrogate pair is one character). */
function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
