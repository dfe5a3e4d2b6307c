import { refuse, type Refusal } from '../commands/refusal.js';

/**
 * Edge validation of JSON bodies (contract §0): a missing or wrongly typed field is 400
 * invalid_request naming the field; unknown fields are ignored.
 */
export function stringField(body: unknown, name: string, maxLength: number): string | Refusal {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  if (value === undefined || value === null) return refuse('invalid_request', `${name} is required`);
  if (typeof value !== 'string') return refuse('invalid_request', `${name} must be a string`);
  if (value.length > maxLength) return refuse('invalid_request', `${name} is longer than ${maxLength} characters`);
  return value;
}
