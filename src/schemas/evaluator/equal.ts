import type { JsonValue } from '../../events/envelope.js';
import { canonicalJson } from '../../events/canonical-json.js';

/** JSON Schema equality: numbers by value (1 equals 1.0), objects regardless of key order. */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i] as JsonValue));
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k] as JsonValue, b[k] as JsonValue));
}

/** Indices of the first two equal items, found through canonical forms rather than n² comparisons. */
export function firstDuplicate(items: readonly JsonValue[]): [number, number] | null {
  const seen = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const key = canonicalJson(items[i] as JsonValue);
    const earlier = seen.get(key);
    if (earlier !== undefined) return [earlier, i];
    seen.set(key, i);
  }
  return null;
}
