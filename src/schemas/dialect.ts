import type { JsonValue } from '../events/envelope.js';

/** The one dialect the service accepts (R-SCH-01: any other `$schema` fails to compile). */
export const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** Vocabularies of the 2020-12 dialect; a `$vocabulary` requiring any other is refused. */
export const KNOWN_VOCABULARIES: ReadonlySet<string> = new Set([
  'https://json-schema.org/draft/2020-12/vocab/core',
  'https://json-schema.org/draft/2020-12/vocab/applicator',
  'https://json-schema.org/draft/2020-12/vocab/unevaluated',
  'https://json-schema.org/draft/2020-12/vocab/validation',
  'https://json-schema.org/draft/2020-12/vocab/meta-data',
  'https://json-schema.org/draft/2020-12/vocab/format-annotation',
  'https://json-schema.org/draft/2020-12/vocab/format-assertion',
  'https://json-schema.org/draft/2020-12/vocab/content',
]);

/** Keywords whose value is one subschema. */
export const SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'additionalProperties',
  'propertyNames',
  'items',
  'contains',
  'if',
  'then',
  'else',
  'not',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
]);

/** Keywords whose value is an array of subschemas. */
export const SCHEMA_ARRAY_KEYWORDS: ReadonlySet<string> = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/** Keywords whose value is an object of subschemas. */
export const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs']);

const OTHER_KEYWORDS = [
  '$schema',
  '$id',
  '$ref',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$vocabulary',
  '$comment',
  'type',
  'const',
  'enum',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
  'format',
  'contentEncoding',
  'contentMediaType',
];

/** Every keyword of Draft 2020-12; strict mode refuses anything else. */
export const KNOWN_KEYWORDS: ReadonlySet<string> = new Set([
  ...SCHEMA_KEYWORDS,
  ...SCHEMA_ARRAY_KEYWORDS,
  ...SCHEMA_MAP_KEYWORDS,
  ...OTHER_KEYWORDS,
]);

export type SchemaObject = { [key: string]: JsonValue };
/** A JSON Schema: an object, or `true`/`false`. */
export type Schema = boolean | SchemaObject;

export function isSchemaObject(value: JsonValue | undefined): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isSchema(value: JsonValue | undefined): value is Schema {
  return typeof value === 'boolean' || isSchemaObject(value);
}

/** Visits the direct subschemas of a node (applicators and `$defs`), with their pointer segments. */
export function forEachSubschema(node: SchemaObject, visit: (child: Schema, segments: readonly string[]) => void): void {
  for (const keyword of Object.keys(node)) {
    const value = node[keyword];
    if (SCHEMA_KEYWORDS.has(keyword)) {
      if (isSchema(value)) visit(value, [keyword]);
    } else if (SCHEMA_ARRAY_KEYWORDS.has(keyword)) {
      if (Array.isArray(value)) value.forEach((v, i) => isSchema(v) && visit(v, [keyword, String(i)]));
    } else if (SCHEMA_MAP_KEYWORDS.has(keyword)) {
      if (isSchemaObject(value)) for (const k of Object.keys(value)) if (isSchema(value[k])) visit(value[k], [keyword, k]);
    }
  }
}

/** Defines an own property even for names like `__proto__`, which plain assignment would swallow. */
export function setOwn<T>(target: { [key: string]: T }, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function pointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
