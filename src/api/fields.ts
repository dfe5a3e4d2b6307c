import { refuse, type Refusal } from '../commands/refusal.js';

/**
 * Edge checks of JSON bodies (contract §0): a missing or wrongly typed field is 400
 * invalid_request naming the field by its path (`slots[2].verbs`); unknown fields are ignored.
 */
export type Fields = Readonly<Record<string, unknown>>;

export function objectAt(value: unknown, path: string): Fields | Refusal {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse('invalid_request', `${path} must be an object`);
  return value as Fields;
}

/** A field of a body that may not even be an object (a missing body has no fields). */
export function fieldOf(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Fields)[name] : undefined;
}

/** A string exactly as sent, for values where surrounding space is itself wrong (one-time codes). */
export function exactTextAt(value: unknown, path: string, maxLength: number): string | Refusal {
  if (value === undefined || value === null) return refuse('invalid_request', `${path} is required`);
  if (typeof value !== 'string') return refuse('invalid_request', `${path} must be a string`);
  if (value.length > maxLength) return refuse('invalid_request', `${path} is longer than ${maxLength} characters`);
  return value;
}

export function textAt(value: unknown, path: string, maxLength: number): string | Refusal {
  const raw = exactTextAt(value, path, Number.MAX_SAFE_INTEGER);
  if (typeof raw !== 'string') return raw;
  const text = raw.trim();
  if (text.length === 0) return refuse('invalid_request', `${path} must not be blank`);
  if (text.length > maxLength) return refuse('invalid_request', `${path} is longer than ${maxLength} characters`);
  return text;
}

export function booleanAt(value: unknown, path: string): boolean | Refusal {
  if (value === undefined || value === null) return refuse('invalid_request', `${path} is required`);
  if (typeof value !== 'boolean') return refuse('invalid_request', `${path} must be true or false`);
  return value;
}

export function oneOfAt<T extends string>(value: unknown, path: string, allowed: readonly T[]): T | Refusal {
  if (value === undefined || value === null) return refuse('invalid_request', `${path} is required`);
  if (!allowed.includes(value as T)) return refuse('invalid_request', `${path} must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** A non-empty list of names from `allowed`, each once, in `allowed`'s order. */
export function subsetAt<T extends string>(value: unknown, path: string, allowed: readonly T[], maxLength = allowed.length * 4): T[] | Refusal {
  if (value === undefined || value === null) return refuse('invalid_request', `${path} is required`);
  if (!Array.isArray(value)) return refuse('invalid_request', `${path} must be an array`);
  if (value.length === 0) return refuse('invalid_request', `${path} must name at least one of ${allowed.join(', ')}`);
  if (value.length > maxLength) return refuse('invalid_request', `${path} has more than ${maxLength} entries`);
  for (const [i, item] of value.entries()) {
    if (!allowed.includes(item as T)) return refuse('invalid_request', `${path}[${i}] must be one of ${allowed.join(', ')}`);
  }
  return allowed.filter((name) => value.includes(name));
}
