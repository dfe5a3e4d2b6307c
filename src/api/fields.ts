import { refuse, type Refusal } from '../commands/refusal.js';
import type { JsonObject } from '../events/envelope.js';

/**
 * Edge checks of JSON bodies (R-HTTP-04): a missing or wrongly typed field is 400 invalid_request
 * naming the field by its path (`slots[2].verbs`); a field the route does not define never gets
 * here (R-HTTP-15, known-input.ts).
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

/**
 * What a text field may hold (R-LIM-02, R-LIM-03). Every kind refuses control characters (C0, DEL, C1),
 * lone surrogates, which PostgreSQL can store in neither text nor jsonb, and line separators.
 * - `line` (the default): a name, a label, an address: one line.
 * - `free`: free text (a description): tab and newline allowed too.
 * - `shown`: a name others read out of context (in mail, as a file's name): a line without
 *   bidirectional controls, which make text read otherwise than it is stored, nor a link (`scheme://`).
 */
export type TextKind = 'line' | 'free' | 'shown';

const CONTROL = /[\p{Cc}\p{Cs}\u2028\u2029]/u;
const FREE_TEXT_WHITESPACE = /[\t\n]/g;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const LINK = /[a-z][a-z0-9+.-]*:\/\//i;

/** Why `text` is not a text of `kind`, naming the character, or null when it is one. */
export function textProblem(text: string, kind: TextKind): string | null {
  const control = CONTROL.exec(kind === 'free' ? text.replace(FREE_TEXT_WHITESPACE, ' ') : text);
  if (control)
    return `contains the control character ${codePoint(control[0])}${kind === 'free' ? ' (only tab and newline are allowed)' : ''}`;
  if (kind !== 'shown') return null;
  const bidi = BIDI.exec(text);
  if (bidi) return `contains the bidirectional control ${codePoint(bidi[0])}`;
  if (LINK.test(text)) return 'must not contain a link';
  return null;
}

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** A string exactly as sent, for values where surrounding space is itself wrong (one-time codes). */
export function exactTextAt(value: unknown, path: string, maxLength: number, kind: TextKind = 'line'): string | Refusal {
  if (value === undefined || value === null) return refuse('invalid_request', `${path} is required`);
  if (typeof value !== 'string') return refuse('invalid_request', `${path} must be a string`);
  if (value.length > maxLength) return refuse('invalid_request', `${path} is longer than ${maxLength} characters`);
  const problem = textProblem(value, kind);
  if (problem) return refuse('invalid_request', `${path} ${problem}`);
  return value;
}

/** A string without surrounding space; the characters are judged as sent, so none is silently dropped. */
export function textAt(value: unknown, path: string, maxLength: number, kind: TextKind = 'line'): string | Refusal {
  const raw = exactTextAt(value, path, Number.MAX_SAFE_INTEGER, kind);
  if (typeof raw !== 'string') return raw;
  const text = raw.trim();
  if (text.length === 0) return refuse('invalid_request', `${path} must not be blank`);
  if (text.length > maxLength) return refuse('invalid_request', `${path} is longer than ${maxLength} characters`);
  return text;
}

/**
 * An instant with its offset (`2026-12-01T10:00:00Z`, `...+01:00`): a date-time without one, or
 * any other form Date.parse happens to read, would depend on the server's time zone.
 */
export function timestampAt(value: unknown, path: string): string | Refusal {
  const wrong = refuse('invalid_request', `${path} must be an ISO 8601 timestamp with an offset, such as 2026-12-01T10:00:00Z`);
  if (typeof value !== 'string') return wrong;
  const match = TIMESTAMP.exec(value);
  if (!match) return wrong;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  // Date.parse rolls 31 February over into March; a day the month does not have is a typo.
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1 || hour > 23 || minute > 59 || second > 59 || Number.isNaN(Date.parse(value))) return wrong;
  return value;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

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
export function subsetAt<T extends string>(
  value: unknown,
  path: string,
  allowed: readonly T[],
  maxLength = allowed.length * 4,
): T[] | Refusal {
  if (value === undefined || value === null) return refuse('invalid_request', `${path} is required`);
  if (!Array.isArray(value)) return refuse('invalid_request', `${path} must be an array`);
  if (value.length === 0) return refuse('invalid_request', `${path} must name at least one of ${allowed.join(', ')}`);
  if (value.length > maxLength) return refuse('invalid_request', `${path} has more than ${maxLength} entries`);
  for (const [i, item] of value.entries()) {
    if (!allowed.includes(item as T)) return refuse('invalid_request', `${path}[${i}] must be one of ${allowed.join(', ')}`);
  }
  return allowed.filter((name) => value.includes(name));
}

/** U+0000 and lone surrogates: PostgreSQL stores neither in text nor in jsonb. */
const UNSTORABLE = /[\u0000\p{Cs}]/u;

type Node = { readonly value: unknown; readonly parent: Node | null; readonly token: string };

/**
 * JSON is data: any character it can escape is kept, except what PostgreSQL cannot store, in a
 * string or a key; a number JSON cannot write back (1e400 read as Infinity) is refused too.
 * Walked without recursion and with paths built only for the answer, as data may nest deeply.
 */
export function jsonProblem(value: unknown, path: string): string | null {
  const stack: Node[] = [{ value, parent: null, token: '' }];
  const at = (node: Node) => {
    const tokens: string[] = [];
    for (let n: Node | null = node; n?.parent; n = n.parent) tokens.unshift(n.token);
    return [path, ...tokens].join('/');
  };
  for (let node = stack.pop(); node; node = stack.pop()) {
    const v = node.value;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) return `${at(node)} ${unstorable(v)}`;
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `${at(node)} is a number out of range`;
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ value: item, parent: node, token: String(i) }));
    } else if (typeof v === 'object' && v !== null) {
      for (const [key, item] of Object.entries(v)) {
        if (UNSTORABLE.test(key)) return `a key of ${at(node)} ${unstorable(key)}`;
        stack.push({ value: item, parent: node, token: key.replaceAll('~', '~0').replaceAll('/', '~1') });
      }
    }
  }
  return null;
}

const unstorable = (text: string) => (text.includes('\u0000') ? 'contains U+0000' : 'contains a lone surrogate');

/** A whole number from `min`, as versions are. */
export function integerAt(value: unknown, path: string, min = 0): number | Refusal {
  if (value === undefined || value === null) return refuse('invalid_request', `${path} is required`);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    return refuse('invalid_request', `${path} must be a whole number from ${min}`);
  }
  return value;
}

/** A JSON object of data, keeping what every store can hold (R-LIM-04). */
export function dataAt(value: unknown, path: string): JsonObject | Refusal {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return refuse('invalid_request', `${path} must be a JSON object`);
  const problem = jsonProblem(value, path);
  return problem ? refuse('invalid_request', problem) : (value as JsonObject);
}
