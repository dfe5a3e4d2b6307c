import type { JsonValue } from './envelope.js';

/**
 * JSON with object keys sorted at every depth, so equal values always hash and compare equal
 * (the ordering rule of RFC 8785; numbers and strings are left to JSON.stringify).
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value)
    .filter((k) => value[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] as JsonValue)}`).join(',')}}`;
}
