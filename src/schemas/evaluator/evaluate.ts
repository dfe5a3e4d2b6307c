import type { JsonValue } from '../../events/envelope.js';
import { isSchema, isSchemaObject, pointerSegment } from '../dialect.js';
import type { Schema, SchemaObject } from '../dialect.js';
import type { SchemaGraph } from '../graph.js';
import type { Resource } from '../resources.js';
import type { DataError } from '../results.js';
import { assertionErrors } from './assertions.js';
import type { AssertionContext } from './assertions.js';
import { failed, passed, Seen } from './seen.js';
import type { Outcome } from './seen.js';

export type EvaluatorContext = AssertionContext & { readonly graph: SchemaGraph };

/**
 * A direct Draft 2020-12 evaluator for the forms Ajv answers wrongly: it keeps the dynamic scope
 * (the schema resources entered, outermost first) for `$dynamicRef`, and the annotations of
 * every valid in-place subschema for `unevaluatedProperties` / `unevaluatedItems`.
 */
export function evaluate(ctx: EvaluatorContext, node: Schema, data: JsonValue, path: string, outerScope: readonly Resource[]): Outcome {
  if (node === true) return passed();
  if (node === false) return failed([{ instancePath: path, keyword: 'false schema', message: 'boolean schema is false' }]);
  const resource = ctx.graph.index.info(node)?.resource;
  const scope = resource && outerScope[outerScope.length - 1] !== resource ? [...outerScope, resource] : outerScope;

  const seen = new Seen();
  const errors: DataError[] = [];
  const at = (child: Schema, value: JsonValue, childPath: string) => evaluate(ctx, child, value, childPath, scope);
  const inPlace = (child: Schema): Outcome => {
    const outcome = at(child, data, path);
    if (outcome.valid) seen.merge(outcome.seen);
    else errors.push(...outcome.errors);
    return outcome;
  };
  const fail = (keyword: string, message: string) => errors.push({ instancePath: path, keyword, message });

  const ref = ctx.graph.refs.get(node);
  if (ref) inPlace(ref.node);
  const dynamic = ctx.graph.dynamicRefs.get(node);
  if (dynamic) inPlace(dynamicTarget(dynamic.initial.node, dynamic.anchor, scope));

  errors.push(...assertionErrors(node, data, path, ctx));
  inPlaceApplicators(node, at, inPlace, fail, data, path, seen, errors);
  if (isSchemaObject(data)) objectApplicators(node, data, path, at, fail, seen, errors, ctx.regex);
  if (Array.isArray(data)) arrayApplicators(node, data, path, at, fail, seen, errors);
  return { valid: errors.length === 0, errors, seen };
}

function dynamicTarget(initial: Schema, anchor: string | null, scope: readonly Resource[]): Schema {
  if (anchor === null) return initial;
  for (const resource of scope) {
    const hit = resource.dynamicAnchors.get(anchor);
    if (hit) return hit;
  }
  return initial;
}

type At = (child: Schema, value: JsonValue, childPath: string) => Outcome;
type Fail = (keyword: string, message: string) => void;

function schemas(value: JsonValue | undefined): Schema[] {
  return Array.isArray(value) ? value.filter(isSchema) : [];
}

function inPlaceApplicators(
  node: SchemaObject,
  at: At,
  inPlace: (s: Schema) => Outcome,
  fail: Fail,
  data: JsonValue,
  path: string,
  seen: Seen,
  errors: DataError[],
): void {
  for (const s of schemas(node.allOf)) inPlace(s);

  if (Array.isArray(node.anyOf)) {
    const outcomes = schemas(node.anyOf).map((s) => at(s, data, path));
    const valid = outcomes.filter((o) => o.valid);
    valid.forEach((o) => seen.merge(o.seen));
    if (valid.length === 0) {
      outcomes.forEach((o) => errors.push(...o.errors));
      fail('anyOf', 'must match a schema in anyOf');
    }
  }

  if (Array.isArray(node.oneOf)) {
    const outcomes = schemas(node.oneOf).map((s) => at(s, data, path));
    const valid = outcomes.filter((o) => o.valid);
    if (valid.length === 1) seen.merge((valid[0] as Outcome).seen);
    else if (valid.length === 0) {
      outcomes.forEach((o) => errors.push(...o.errors));
      fail('oneOf', 'must match exactly one schema in oneOf');
    } else fail('oneOf', 'must match exactly one schema in oneOf');
  }

  if (isSchema(node.not) && at(node.not, data, path).valid) fail('not', 'must NOT be valid');

  if (isSchema(node.if)) {
    const condition = at(node.if, data, path);
    if (condition.valid) seen.merge(condition.seen);
    const branch = condition.valid ? 'then' : 'else';
    const clause = node[branch];
    if (isSchema(clause) && !inPlace(clause).valid) fail('if', `must match "${branch}" schema`);
  }

  if (isSchemaObject(node.dependentSchemas) && isSchemaObject(data)) {
    for (const name of Object.keys(node.dependentSchemas)) {
      const dependent = node.dependentSchemas[name];
      if (Object.hasOwn(data, name) && isSchema(dependent)) inPlace(dependent);
    }
  }
}

function objectApplicators(
  node: SchemaObject,
  data: SchemaObject,
  path: string,
  at: At,
  fail: Fail,
  seen: Seen,
  errors: DataError[],
  regex: (source: string) => RegExp,
): void {
  const properties = isSchemaObject(node.properties) ? node.properties : null;
  const patterns = isSchemaObject(node.patternProperties) ? Object.keys(node.patternProperties) : [];
  const regexes = patterns.map(regex);
  const child = (key: string, schema: Schema) => {
    const outcome = at(schema, data[key] as JsonValue, `${path}/${pointerSegment(key)}`);
    if (!outcome.valid) errors.push(...outcome.errors);
    seen.props.add(key);
  };
  for (const key of Object.keys(data)) {
    let matched = false;
    if (properties && Object.hasOwn(properties, key) && isSchema(properties[key])) {
      child(key, properties[key]);
      matched = true;
    }
    regexes.forEach((regex, i) => {
      if (!regex.test(key)) return;
      child(key, (node.patternProperties as SchemaObject)[patterns[i] as string] as Schema);
      matched = true;
    });
    if (!matched && isSchema(node.additionalProperties)) {
      const before = errors.length;
      child(key, node.additionalProperties);
      if (node.additionalProperties === false && errors.length > before) {
        errors.splice(before, errors.length - before, {
          instancePath: path,
          keyword: 'additionalProperties',
          message: `must NOT have additional property '${key}'`,
        });
      }
    }
    if (isSchema(node.propertyNames) && !at(node.propertyNames, key, path).valid) {
      fail('propertyNames', `property name '${key}' is invalid`);
    }
  }
  if (isSchema(node.unevaluatedProperties)) {
    for (const key of Object.keys(data)) {
      if (seen.props.has(key)) continue;
      const outcome = at(node.unevaluatedProperties, data[key] as JsonValue, `${path}/${pointerSegment(key)}`);
      if (!outcome.valid) {
        if (node.unevaluatedProperties === false) fail('unevaluatedProperties', `must NOT have unevaluated property '${key}'`);
        else errors.push(...outcome.errors);
      }
      seen.props.add(key);
    }
  }
}

function arrayApplicators(node: SchemaObject, data: JsonValue[], path: string, at: At, fail: Fail, seen: Seen, errors: DataError[]): void {
  const item = (schema: Schema, i: number) => {
    const outcome = at(schema, data[i] as JsonValue, `${path}/${i}`);
    if (!outcome.valid) errors.push(...outcome.errors);
    return outcome.valid;
  };
  const prefix = schemas(node.prefixItems);
  prefix.forEach((schema, i) => i < data.length && item(schema, i));
  seen.prefix = Math.max(seen.prefix, Math.min(prefix.length, data.length));
  if (isSchema(node.items)) {
    for (let i = prefix.length; i < data.length; i++) item(node.items, i);
    seen.allItems = true;
  }
  if (isSchema(node.contains)) {
    let matches = 0;
    for (let i = 0; i < data.length; i++) {
      if (!at(node.contains, data[i] as JsonValue, `${path}/${i}`).valid) continue;
      matches++;
      seen.items.add(i);
    }
    const min = typeof node.minContains === 'number' ? node.minContains : 1;
    if (matches < min) fail('contains', `must contain at least ${min} valid item(s)`);
    if (typeof node.maxContains === 'number' && matches > node.maxContains)
      fail('contains', `must contain at most ${node.maxContains} valid item(s)`);
  }
  if (isSchema(node.unevaluatedItems)) {
    for (let i = 0; i < data.length; i++) {
      if (seen.hasItem(i)) continue;
      const before = errors.length;
      if (!item(node.unevaluatedItems, i) && node.unevaluatedItems === false) {
        errors.splice(before, errors.length - before, {
          instancePath: path,
          keyword: 'unevaluatedItems',
          message: `must NOT have unevaluated item ${i}`,
        });
      }
    }
    seen.allItems = true;
  }
}
