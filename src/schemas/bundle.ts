import { DIALECT, isSchemaObject, SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS, setOwn } from './dialect.js';
import type { Schema, SchemaObject } from './dialect.js';
import type { JsonValue } from '../events/envelope.js';
import type { SchemaGraph } from './graph.js';

// Identifiers are resolved already; left in place, Ajv would register them process-wide.
const DROPPED = new Set(['$id', '$anchor', '$dynamicAnchor', '$schema', '$vocabulary', '$comment', '$defs']);

/**
 * One self-contained schema for Ajv: every reference target becomes an entry of the root's
 * `$defs` and every `$ref` a local pointer to it. Ajv then resolves nothing by URI, so its
 * resolver bugs and its shared registry stay out of the verdict.
 */
export function bundleForAjv(graph: SchemaGraph): Schema {
  const keys = new Map<SchemaObject, string>();
  const pending: SchemaObject[] = [];
  const defs: SchemaObject = {};

  const keyOf = (target: Schema): string => {
    if (typeof target === 'boolean') return target ? 'true' : 'false';
    let key = keys.get(target);
    if (key === undefined) {
      key = `n${keys.size}`;
      keys.set(target, key);
      pending.push(target);
    }
    return key;
  };

  const copy = (node: Schema): Schema => {
    if (!isSchemaObject(node)) return node;
    const out: SchemaObject = {};
    for (const keyword of Object.keys(node)) {
      const value = node[keyword] as JsonValue;
      if (DROPPED.has(keyword)) continue;
      if (keyword === '$ref') {
        const target = graph.refs.get(node);
        if (target) setOwn(out, '$ref', `#/$defs/${keyOf(target.node)}`);
      } else if (SCHEMA_KEYWORDS.has(keyword)) {
        setOwn(out, keyword, copy(value as Schema));
      } else if (SCHEMA_ARRAY_KEYWORDS.has(keyword) && Array.isArray(value)) {
        setOwn(
          out,
          keyword,
          value.map((v) => copy(v as Schema)),
        );
      } else if (SCHEMA_MAP_KEYWORDS.has(keyword) && isSchemaObject(value)) {
        const map: SchemaObject = {};
        for (const k of Object.keys(value)) setOwn(map, k, copy(value[k] as Schema));
        setOwn(out, keyword, map);
      } else {
        setOwn(out, keyword, value);
      }
    }
    return out;
  };

  const rootKey = keyOf(graph.root.node);
  for (let target = pending.shift(); target; target = pending.shift()) setOwn(defs, keys.get(target) as string, copy(target));
  setOwn(defs, 'true', true);
  setOwn(defs, 'false', false);
  return { $schema: DIALECT, $ref: `#/$defs/${rootKey}`, $defs: defs };
}
