import type { JsonValue } from '../../src/events/envelope.js';

type Obj = { [key: string]: JsonValue };

// Property names that trip JavaScript objects: prototype members and __proto__ itself.
const DATA_KEYS = ['a', 'b', 'x-1', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'];
const SCHEMA_KEYS = ['a', 'b', 'x-1', 'constructor', 'toString', 'valueOf'];
const SCALARS: JsonValue[] = [
  null,
  true,
  false,
  0,
  1,
  -1,
  1.5,
  2,
  10,
  0.1,
  1e21,
  '',
  'a',
  'ab',
  'abc',
  'A1',
  '😀',
  'CH',
  'anna@example.ch',
  '2024-02-29',
];
const KEYWORDS = [
  'type',
  'const',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'items',
  'prefixItems',
  'contains',
  'minContains',
  'maxContains',
  'minItems',
  'maxItems',
  'uniqueItems',
  'properties',
  'patternProperties',
  'additionalProperties',
  'required',
  'propertyNames',
  'dependentRequired',
  'dependentSchemas',
  'minProperties',
  'maxProperties',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'format',
  '$ref',
];

/** Seeded, so a failure reproduces: schemas and data drawn from the keywords Ajv judges. */
export class RandomSchemas {
  constructor(private seed: number) {}

  private next(): number {
    this.seed = (this.seed * 1103515245 + 12345) & 0x7fffffff;
    return this.seed / 0x7fffffff;
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  private int(max: number): number {
    return Math.floor(this.next() * (max + 1));
  }

  value(depth = 0): JsonValue {
    const r = this.next();
    if (depth > 2 || r < 0.35) return this.pick(SCALARS);
    if (r < 0.65) return Array.from({ length: this.int(3) }, () => this.value(depth + 1));
    const o: Obj = {};
    for (let i = this.int(3); i > 0; i--)
      Object.defineProperty(o, this.pick(DATA_KEYS), {
        value: this.value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return o;
  }

  schema(depth = 0): JsonValue {
    if (depth > 3 || this.next() < 0.15) return this.pick([true, false, {}]);
    const s: Obj = {};
    for (let n = 1 + this.int(2); n > 0; n--) this.keyword(s, this.pick(KEYWORDS), depth);
    return s;
  }

  private keyword(s: Obj, k: string, depth: number): void {
    const sub = () => this.schema(depth + 1);
    switch (k) {
      case 'type':
        s.type =
          this.next() < 0.3
            ? [this.pick(['string', 'number']), this.pick(['null', 'integer', 'array', 'object'])]
            : this.pick(['string', 'number', 'integer', 'object', 'array', 'null', 'boolean']);
        break;
      case 'const':
        s.const = this.value(1);
        break;
      case 'enum':
        s.enum = Array.from({ length: this.int(2) }, () => this.value(1));
        break;
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        s[k] = this.pick([0, 1, 1.5, -1]);
        break;
      case 'multipleOf':
        s.multipleOf = this.pick([0.5, 2, 0.1, 3, 1e-8]);
        break;
      case 'pattern':
        s.pattern = this.pick(['^a', 'b$', '[0-9]', '^.$', '\\p{L}']);
        break;
      case 'uniqueItems':
        s.uniqueItems = this.next() < 0.7;
        break;
      case 'required':
        s.required = [this.pick(DATA_KEYS)];
        break;
      case 'dependentRequired':
        s.dependentRequired = { [this.pick(SCHEMA_KEYS)]: [this.pick(DATA_KEYS)] };
        break;
      case 'format':
        s.format = this.pick(['email', 'date', 'date-time', 'uri', 'country', 'currency', 'ipv4']);
        break;
      case '$ref':
        s.$ref = this.pick(['#/$defs/d', '#/$defs/e']);
        s.$defs = { d: sub(), e: { type: 'object', properties: { a: { $ref: '#/$defs/d' } } } };
        break;
      case 'prefixItems':
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        s[k] = Array.from({ length: 1 + this.int(1) }, sub);
        break;
      case 'properties':
      case 'dependentSchemas':
        s[k] = { [this.pick(SCHEMA_KEYS)]: sub() };
        break;
      case 'patternProperties':
        s[k] = { [this.pick(['^a', 'b', '^x-', '', '^_'])]: sub() };
        break;
      case 'items':
      case 'contains':
      case 'additionalProperties':
      case 'propertyNames':
      case 'not':
      case 'if':
      case 'then':
      case 'else':
        s[k] = sub();
        break;
      default:
        s[k] = this.int(2);
    }
  }
}
